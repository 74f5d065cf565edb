"""The main window: the app's entry, menus, files, docks, recovery, settings, help, baseline."""
