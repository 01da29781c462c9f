"""Statuses and their exceptions, the version and the default thread count (base.h)."""

from ._ffi import lib


OK, INVALID_ARGUMENT, PARSE, NO_MEMORY, NOT_CONVERGED, CAPACITY, IO, UNSUPPORTED = range(8)


class OsculateError(Exception):
    """A failing osculate call. `status` is the C status code, `message` osc_last_error()."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status
        self.message = message


class InvalidArgumentError(OsculateError, ValueError):
    """OSC_ERR_INVALID_ARGUMENT: a value outside the documented domain (also a ValueError)."""


class ParseError(OsculateError):
    """OSC_ERR_PARSE: a malformed file or buffer."""


class NotConvergedError(OsculateError):
    """OSC_ERR_NOT_CONVERGED: an iterative solver stopped before its tolerance."""


class CapacityError(OsculateError):
    """OSC_ERR_CAPACITY: an output buffer was too small."""


class OsculateIOError(OsculateError, OSError):
    """OSC_ERR_IO: a file could not be opened, read or written (also an OSError)."""


class UnsupportedError(OsculateError, NotImplementedError):
    """OSC_ERR_UNSUPPORTED: disabled at build time or not implemented for this input."""


class OsculateMemoryError(OsculateError, MemoryError):
    """OSC_ERR_NO_MEMORY: the allocator returned NULL."""


_classes = {
    INVALID_ARGUMENT: InvalidArgumentError,
    PARSE: ParseError,
    NO_MEMORY: OsculateMemoryError,
    NOT_CONVERGED: NotConvergedError,
    CAPACITY: CapacityError,
    IO: OsculateIOError,
    UNSUPPORTED: UnsupportedError,
}


def status_string(status):
    """The C name of a status code ("OSC_ERR_PARSE", ...)."""
    return lib.osc_status_string(int(status)).decode()


def error(status, where=None):
    """The exception for a status, carrying osc_last_error() of this thread."""
    message = lib.osc_last_error().decode(errors="replace")
    if not message:
        message = status_string(status) + (" in " + where if where else "")
    return _classes.get(status, OsculateError)(message, status)


def check(status, where=None):
    if status != OK:
        raise error(status, where)


def version():
    """The library version string "major.minor.patch"."""
    return lib.osc_version_string().decode()


def default_thread_count():
    """Threads that batch functions use when asked for 0 (1 without OpenMP)."""
    return lib.osc_default_thread_count()
