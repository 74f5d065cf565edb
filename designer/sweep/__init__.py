"""Sweep results in the window (File > Open Sweep Results...)."""
