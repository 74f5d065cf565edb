"""The shared base of the application: threads, the QApplication, formatting, style, icons, small widgets."""
