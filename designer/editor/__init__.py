"""The docks that edit the design beside the canvas: component palette, outline, inspector."""
