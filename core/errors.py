"""User-facing error types.

Every error a user can cause (bad file, unknown id, impossible parameter) is raised as a
``DesignError`` subclass carrying a one-line message; the CLI and GUI print that line and never a
traceback.
"""


class DesignError(ValueError):
    """A problem with user input, reported as one line."""


class CatalogError(DesignError):
    """A catalog file or entry is invalid, or an id is unknown."""


class ProjectFileError(DesignError):
    """A project or workload file cannot be read or is invalid."""


class GeneratorError(DesignError):
    """A generator was asked for something impossible."""


class WorkloadError(DesignError):
    """A workload description is invalid."""


class DesignTooLargeError(DesignError):
    """A design multiplies out beyond what the engine holds (limits in core/limits.py).

    ``largest`` is (block path prefix "pod/su/", link index or None, child id or None): the
    item with the largest share, when the whole design is too large."""

    largest: tuple = ()
