"""The open project: its design and undo stack, the edits behind gestures, continuous evaluation."""
