"""Cluster Designer desktop application (PySide6). Depends on core; core never imports it."""
