"""Side panels showing one aspect of the latest evaluation each (values come from core)."""
