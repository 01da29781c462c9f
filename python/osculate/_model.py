"""What every model class shares: the C object owned through a reference count, its creation,
its bounds, and Python functions that the library calls back."""

import contextlib
import ctypes as C
import threading

from . import _ffi as F
from ._base import check
from ._ffi import lib


# Orders close() against a borrower taking a reference on the model it borrows. Reentrant: the
# garbage collector may finalise (close) another model while this thread holds it.
_lifetime = threading.RLock()


def _destroy_address(fn):
    return C.cast(fn.c_function, C.c_void_p).value


class _Model:
    """A C model owned through a reference count (oscpy_ref, python/src/osculate_py.c): the model
    holds one reference and every model that borrows it (a Body its SDF or Grid, an Implicit its
    SDF, an LmdCache its last pair of Breps) holds another, so the C object lives until the last
    of them goes, whatever order Python releases them in. close() (or the collector) drops this
    model's own reference; a closed model refuses every use with ValueError."""

    _destroy = None  # the C function that destroys the object
    _handle = 0  # the C object's address; 0 once closed
    _ref = None  # the oscpy_ref's address; None once closed
    _lifetime = _lifetime  # (class attributes: still reachable while the interpreter shuts down)
    _release_ref = lib.oscpy_ref_release

    def __init__(self, handle, lenders=(), keep=()):
        """Takes `handle` over, and the references `lenders` (from _borrowing) on the models it
        borrows; `keep`: Python objects the C object calls back into (ctypes callbacks)."""
        ref = lib.oscpy_ref_create(handle, _destroy_address(self._destroy),
                                   (C.c_void_p * max(len(lenders), 1))(*lenders), len(lenders))
        if not ref:
            self._destroy(handle)
            raise MemoryError("%s: out of memory for its reference count" % type(self).__name__)
        self._keep = tuple(keep)
        self._handle, self._ref = handle, ref

    @property
    def _as_parameter_(self):
        h = self._handle
        if not h:
            raise ValueError("%s is closed" % type(self).__name__)
        return h

    def close(self):
        """Releases the C object now instead of when the Python object is collected. A model that
        other models borrow lives on until the last of them goes. Using a closed model raises
        ValueError; closing it again does nothing. Not while another thread is using this model."""
        with self._lifetime:
            ref, self._ref, self._handle = self._ref, None, 0
        if ref:
            self._release_ref(ref)

    def __del__(self):
        self.close()

    # a model is immutable: a copy is the model itself; pickling would copy an address
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce_ex__(self, protocol):
        raise TypeError("cannot pickle or copy a %s: it holds a C object" % type(self).__name__)


@contextlib.contextmanager
def _borrowing(*models):
    """References on the open models among `models` (None skipped) for a model about to borrow
    them, taken before it is made: hand them to _Model.__init__; released again if making it
    fails. ValueError when one of them is closed."""
    with _lifetime:
        for m in models:
            if m is not None and not m._ref:
                raise ValueError("%s is closed" % type(m).__name__)
        refs = [m._ref for m in models if m is not None]
        for r in refs:
            lib.oscpy_ref_acquire(r)
    try:
        yield refs
    except BaseException:
        for r in refs:
            lib.oscpy_ref_release(r)
        raise


def _create(fn, *args, where=None):
    out = C.c_void_p()
    check(fn(*args, C.byref(out)), where)
    return out.value


def _bounds(fn, obj):
    lo, hi = F.Vec3(), F.Vec3()
    fn(obj, C.byref(lo), C.byref(hi))
    return F.from_vec3(lo), F.from_vec3(hi)


class _Callback:
    """A Python function that the library calls back through a ctypes `prototype`. An exception
    cannot cross C: the first one of a library call is kept (the C side sees NaN) and raised when
    the call returns (_python_calls), which also lets one library call at a time use the function,
    so that an exception is raised by the call whose callback raised it, whatever other threads
    do."""

    def __init__(self, prototype, function):
        self.lock = threading.RLock()
        self.error = None

        def call(*args):
            try:
                return function(*args)
            except Exception as e:  # noqa: BLE001 - re-raised by _python_calls
                if self.error is None:
                    self.error = e
                return float("nan")

        self.c_function = prototype(call)


@contextlib.contextmanager
def _python_calls(*callbacks):
    """Around one library call that may call the _Callbacks `callbacks` (None skipped): holds
    their locks, then raises the first exception one of them raised."""
    unique = sorted({id(c): c for c in callbacks if c is not None}.values(), key=id)
    with contextlib.ExitStack() as stack:
        for c in unique:
            stack.enter_context(c.lock)
            c.error = None
        yield
        for c in unique:
            e, c.error = c.error, None
            if e is not None:
                raise e
