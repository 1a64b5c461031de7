"""Regions and marks: spans recorded by libjouleprof's recorder (on while a Monitor runs)."""

import functools
import threading

from . import _native

_lib = _native.lib
_names = {}
_names_lock = threading.Lock()


def _intern(name):
    # jp_intern takes a lock and a hash lookup; caching the id here keeps a region's cost to a
    # dictionary lookup and two C calls.
    name_id = _names.get(name)
    if name_id is None:
        with _names_lock:
            name_id = _names.get(name)
            if name_id is None:
                name_id = _lib.jp_intern(_native.encode(name))
                if name_id == _native.INVALID_NAME:
                    raise _native.JouleprofError(7, f"could not intern the region name {name!r}")
                _names[name] = name_id
    return name_id


class region:
    """A named span, as a context manager or a decorator.

        with jouleprof.region("load data"):
            ...

        @jouleprof.region("train_step", category="step")
        def train_step(batch): ...

    Nesting on a thread builds the path; a '/' in a name adds levels ("encoder/layer_3").
    Categories: region, model, layer, op, kernel, step, epoch, call, memory. Costs almost nothing
    when no Monitor (or recorder) is running. Begin and end must happen on the same thread.
    """

    def __init__(self, name, category="region"):
        if category not in _native.CATEGORIES:
            raise ValueError(f"category {category!r} is not one of {', '.join(_native.CATEGORIES)}")
        self.name = str(name)
        self.category = _native.CATEGORIES[category]

    def __enter__(self):
        _lib.jp_begin(_intern(self.name), self.category)
        return self

    def __exit__(self, *exc):
        _lib.jp_end()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


def epoch_begin():
    """Marks the start of a training epoch (a mark named "epoch_begin"): epoch 1 then starts here,
    not at the start of the process, and time between epochs (evaluation) counts in none."""
    _lib.jp_epoch_begin()


def epoch_end():
    """Marks the end of a training epoch (a mark named "epoch_end")."""
    _lib.jp_epoch_end()


def mark(name):
    """An instant event with a name (a step boundary, a checkpoint)."""
    _lib.jp_mark(_intern(str(name)))


def recording():
    """True while the recorder records spans (a Monitor with record_spans is running)."""
    return _lib.jp_recorder_enabled() == 1


def now_ns():
    """jouleprof's clock: CLOCK_MONOTONIC nanoseconds."""
    return _lib.jp_now_ns()
