"""Designs in and out of other tools from the window (File > Import / Export)."""
