"""One safe reader for every YAML and JSON input: configs, data files, policy metadata, records.

``yaml.safe_load`` never runs code, but it still lets a 500-byte file do
harm: an alias bomb (anchors repeated inside anchors) is cheap to load and
explodes the moment anything walks or prints it; 50,000 nested brackets end
in a bare ``RecursionError``; a repeated key silently keeps the last value.
:func:`load_text` and :func:`load_file` refuse all of that before any value
is built, each with a message naming the file, the key and the limit:

=================  ======================================================
``max_bytes``      size of the text (default 1 MB)
``max_depth``      nesting of mappings and lists (default 64)
``max_nodes``      scalars, mappings and lists *after* expanding aliases
                   (default 200,000): an alias bomb fails here, in
                   time proportional to the file, never expanded
``max_aliases``    alias uses (``*name``) in the document (default 100)
=================  ======================================================

Duplicate keys are refused in YAML and JSON alike. Error messages elsewhere
quote bad values with :func:`short_repr`, which is bounded in time and length
whatever it is given, except values read from a file: :func:`shown` gives
only their type, and a syntax error gives the line and column, never the
file's text. :func:`read_file` opens a path without ever blocking and reads
only a regular file (no FIFO, device, ``/dev/stdin`` or directory), through
:func:`open_regular`, the one way every reader of the project opens a file.

>>> load_text("a: 1\\nb: [2, 3]", "example.yaml")
{'a': 1, 'b': [2, 3]}
>>> short_repr(list(range(10**6)))
'[0, 1, 2, 3, 4, 5, ...]'
"""

from __future__ import annotations

import errno
import json
import os
import re
import reprlib
import stat
import unicodedata

import yaml

MAX_BYTES = 1_000_000
MAX_DEPTH = 64
MAX_NODES = 200_000
MAX_ALIASES = 100
SHORT_REPR_LENGTH = 80

_repr = reprlib.Repr()
_repr.maxlevel = 3
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxfrozenset = _repr.maxdeque = 6
_repr.maxdict = 4
_repr.maxstring = 60
_repr.maxlong = 40
_repr.maxother = 60


class SafeLoadError(ValueError):
    """A YAML or JSON input refused before use; the message names the file, the key and the limit."""


def short_repr(value, limit: int = SHORT_REPR_LENGTH) -> str:
    """``repr(value)`` cut to ``limit`` characters, in bounded time even for huge or shared structures."""
    text = _repr.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(value, quote: bool = True) -> str:
    """``short_repr(value)``, or only its type (``<str>``) when ``quote`` is False.

    Loaders pass ``quote=False`` for values read from a file: an error never
    quotes a file's content back (the path may name someone else's file).
    """
    return short_repr(value) if quote else f"<{type(value).__name__}>"


# ------------------------------------------------------------------------ YAML
class _Loader(yaml.SafeLoader):
    """SafeLoader that counts nesting and aliases while composing and refuses duplicate keys."""

    def __init__(self, stream, source: str, max_depth: int, max_aliases: int):
        super().__init__(stream)
        self.source = source
        self.max_depth = max_depth
        self.max_aliases = max_aliases
        self.depth = 0
        self.aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > self.max_aliases:
                mark = self.peek_event().start_mark
                raise SafeLoadError(
                    f"{self.source}: more than {self.max_aliases} aliases (*name), line {mark.line + 1}; "
                    f"the limit is max_aliases={self.max_aliases}"
                )
            return super().compose_node(parent, index)
        self.depth += 1
        try:
            if self.depth > self.max_depth:
                mark = self.peek_event().start_mark
                raise SafeLoadError(
                    f"{self.source}: nested deeper than {self.max_depth} levels at line {mark.line + 1}, "
                    f"key {_key_name(index)}; the limit is max_depth={self.max_depth}"
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key: the base class explains it
                    continue
                if duplicate:
                    raise SafeLoadError(
                        f"{self.source}: key {short_repr(key)} appears twice in one mapping "
                        f"(line {key_node.start_mark.line + 1}); each key may be given once"
                    )
        return super().construct_mapping(node, deep=deep)


# YAML 1.1's base-60 numbers (``1:30`` is 90) are not read as numbers: nobody writes them on purpose, ``1:2:3``
# is a string everywhere else, and PyYAML turns a long one into an OverflowError (a float) or works on it in time
# quadratic in its length (an integer). The int and float resolvers are SafeLoader's without those forms.
_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(_FLOAT, re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
                                                   |\.[0-9_]+(?:[eE][-+][0-9]+)?
                                                   |[-+]?\.(?:inf|Inf|INF)
                                                   |\.(?:nan|NaN|NAN))$""", re.X), list("-+0123456789."))
_Loader.add_implicit_resolver(_INT, re.compile(r"""^(?:[-+]?0b[0-1_]+
                                                 |[-+]?0[0-7_]+
                                                 |[-+]?(?:0|[1-9][0-9_]*)
                                                 |[-+]?0x[0-9a-fA-F_]+)$""", re.X), list("-+0123456789"))


def _key_name(index) -> str:
    if isinstance(index, yaml.ScalarNode):
        return short_repr(index.value)
    return short_repr(index) if index is not None else "<top>"


def _expanded_size(root, source: str, max_nodes: int) -> None:
    """Refuse a composed document that has more than ``max_nodes`` nodes once aliases are expanded."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()

    def size(node, where: str) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in on_path:
            raise SafeLoadError(f"{source}: key {where} refers to itself through an alias (a cycle); refused")
        total = 1
        if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            on_path.add(key)
            children = node.value if isinstance(node, yaml.SequenceNode) else [n for pair in node.value for n in pair]
            for i, child in enumerate(children):
                label = _child_label(node, children, i, where)
                total += size(child, label)
                if total > max_nodes:
                    raise SafeLoadError(
                        f"{source}: key {where} expands to more than {max_nodes} values (aliases repeated inside "
                        f"aliases, an 'alias bomb', or simply too much data); the limit is max_nodes={max_nodes}"
                    )
            on_path.discard(key)
        sizes[key] = total
        return total

    size(root, "<top>")


def _child_label(node, children, i: int, where: str) -> str:
    """``where`` extended by the list index or mapping key of child ``i`` (e.g. ``monsters[2].path``)."""
    prefix = "" if where == "<top>" else where
    if isinstance(node, yaml.SequenceNode):
        return f"{prefix}[{i}]"
    key = children[i - i % 2]
    name = key.value if isinstance(key, yaml.ScalarNode) else "?"
    name = name if len(name) <= 30 else name[:27] + "..."
    return f"{prefix}.{name}" if prefix else name


def _load_yaml(text: str, source: str, max_depth: int, max_nodes: int, max_aliases: int):
    loader = _Loader(text, source, max_depth, max_aliases)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, source, max_nodes)
        return loader.construct_document(node)
    finally:
        loader.dispose()


# ------------------------------------------------------------------------ JSON
def _no_duplicates(source: str):
    def hook(pairs):
        result = {}
        for key, value in pairs:
            if key in result:
                raise SafeLoadError(f"{source}: key {short_repr(key)} appears twice in one object; each key may be given once")
            result[key] = value
        return result

    return hook


def _check_json_shape(data, source: str, max_depth: int, max_nodes: int) -> None:
    """JSON has no aliases, but the same depth and size limits apply."""
    count = 0
    stack = [(data, 1, "<top>")]
    while stack:
        value, depth, where = stack.pop()
        count += 1
        if count > max_nodes:
            raise SafeLoadError(f"{source}: more than {max_nodes} values; the limit is max_nodes={max_nodes}")
        if depth > max_depth:
            raise SafeLoadError(
                f"{source}: nested deeper than {max_depth} levels at key {where}; the limit is max_depth={max_depth}"
            )
        if isinstance(value, dict):
            stack.extend((v, depth + 1, f"{where}.{short_repr(k, 30)}") for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, depth + 1, f"{where}[{i}]") for i, v in enumerate(value))


def _load_json(text: str, source: str, max_depth: int, max_nodes: int):
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates(source))
    except RecursionError:
        raise SafeLoadError(f"{source}: nested deeper than {max_depth} levels; the limit is max_depth={max_depth}") from None
    _check_json_shape(data, source, max_depth, max_nodes)
    return data


# ----------------------------------------------------------------------- entry
def load_text(
    text: str | bytes,
    source: str = "<text>",
    *,
    json_only: bool = False,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
    max_aliases: int = MAX_ALIASES,
    error: type[Exception] = SafeLoadError,
):
    """The data in YAML (or JSON, which YAML reads too) ``text``, within the limits; raises ``error``.

    ``source`` names the input in messages; ``json_only`` parses strict JSON
    (policy metadata, records). ``error`` is the exception class raised (a
    caller's own ``ValueError`` subclass, e.g. ``BookletError``).
    """
    try:
        if isinstance(text, bytes):
            if len(text) > max_bytes:
                raise SafeLoadError(f"{source}: {len(text)} bytes; the limit is max_bytes={max_bytes}")
            text = text.decode("utf-8")
        if len(text) > max_bytes:
            raise SafeLoadError(f"{source}: {len(text)} characters; the limit is max_bytes={max_bytes}")
        if json_only:
            return _load_json(text, source, max_depth, max_nodes)
        return _load_yaml(text, source, max_depth, max_nodes, max_aliases)
    except SafeLoadError as failure:
        raise error(str(failure)) from None
    except UnicodeDecodeError as failure:
        raise error(f"{source}: not UTF-8 text ({failure.reason} at byte {failure.start})") from None
    except yaml.YAMLError as failure:
        raise error(f"{source}: not valid YAML/JSON: {_yaml_words(failure)}") from None
    except json.JSONDecodeError as failure:
        raise error(f"{source}: not valid JSON: {failure}") from None
    except (ValueError, TypeError, RecursionError, OverflowError) as failure:  # e.g. an integer of 4300+ digits
        raise error(f"{source}: cannot be read: {_first_lines(failure)}") from None


class NotRegularFile(OSError):
    """Raised by :func:`open_regular` for a path that is not a regular file; ``strerror`` says what it is."""


def open_regular(path: str | os.PathLike, *, follow_links: bool = True) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file at ``path``, and its ``fstat``: the one way every reader opens a file.

    The file is opened non-blocking (a FIFO with no writer, ``/dev/stdin`` or
    a terminal never waits) and checked *after* opening (``fstat``: no window
    to swap it): anything but a regular file raises :class:`NotRegularFile`
    naming what it is (``"a directory"``, ``"a FIFO (named pipe)"``...), and
    ``follow_links=False`` refuses a symbolic link. Other failures raise
    :class:`OSError` as ``os.open`` does. The caller closes the descriptor.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(errno.EINVAL, _file_kind(info.st_mode), os.fspath(path))
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor, info


def read_at_most(descriptor: int, limit: int) -> bytes:
    """At most ``limit`` bytes from ``descriptor`` (fewer at the end of the file), read in chunks of 16 MiB."""
    chunks, done = [], 0
    while done < limit:
        chunk = os.read(descriptor, min(1 << 24, limit - done))
        if not chunk:
            break
        chunks.append(chunk)
        done += len(chunk)
    return b"".join(chunks)


def read_file(path: str | os.PathLike, *, max_bytes: int = MAX_BYTES, error: type[Exception] = SafeLoadError,
              what: str = "file", form: str = "YAML or JSON") -> bytes:
    """The bytes of the regular file at ``path`` (at most ``max_bytes``), opened by :func:`open_regular`.

    A FIFO, ``/dev/stdin``, a device, a socket or a directory is refused at
    once in words instead of waiting for a writer or reading for ever; so is a
    missing file or one over the size limit. ``what`` names the kind of file
    in messages (``"booklet file"``), ``form`` what it holds.
    """
    source = os.fspath(path)
    try:
        descriptor, _ = open_regular(source)
    except FileNotFoundError:
        raise error(f"{source}: cannot read the {what}: no such file") from None
    except NotRegularFile as failure:
        raise error(f"{source}: {failure.strerror}, not a regular file; expected a {what} ({form})") from None
    except OSError as failure:
        raise error(f"{source}: cannot read the {what} ({failure.strerror or failure})") from None
    try:
        data = read_at_most(descriptor, max_bytes + 1)
    except OSError as failure:
        raise error(f"{source}: cannot read the {what} ({failure.strerror or failure})") from None
    finally:
        os.close(descriptor)
    if len(data) > max_bytes:
        raise error(f"{source}: larger than {max_bytes} bytes; the limit is max_bytes={max_bytes}")
    return data


def _file_kind(mode: int) -> str:
    for test, words in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a plain file"


def load_file(path: str | os.PathLike, *, max_bytes: int = MAX_BYTES, error: type[Exception] = SafeLoadError,
              json_only: bool | None = None, what: str = "file", **limits):
    """The data in the YAML or JSON file at ``path`` (JSON if it ends in ``.json``, or if ``json_only``), within the limits.

    The file is read with :func:`read_file`: a regular file only, never a blocking open.
    """
    source = os.fspath(path)
    raw = read_file(source, max_bytes=max_bytes, error=error, what=what)
    json_only = source.endswith(".json") if json_only is None else json_only
    return load_text(raw, source, json_only=json_only, max_bytes=max_bytes, error=error, **limits)


def _yaml_words(failure: yaml.YAMLError) -> str:
    """What is wrong and where (line, column), without the quoted lines of the file PyYAML adds."""
    if not isinstance(failure, yaml.MarkedYAMLError):
        return _first_lines(failure)
    parts = [part for part in (failure.context, failure.problem) if part]
    mark = failure.problem_mark or failure.context_mark
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return _first_lines(ValueError("; ".join(parts) or type(failure).__name__)) + where


def _first_lines(failure: Exception, lines: int = 6, limit: int = 400) -> str:
    text = "\n".join(str(failure).strip().splitlines()[:lines]) or type(failure).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- shown text
#: what :func:`check_printable` requires, in the words of its errors
PRINTABLE_RULE = "printable text (no ESC or other control characters, no line breaks or tabs)"


def is_printable_text(value) -> bool:
    """True for a ``str`` of printable characters (``isprintable()``) and spaces of any script (Unicode ``Zs``: a
    Japanese name may hold the full-width space): what a terminal shows as it is, no ESC or line break."""
    return isinstance(value, str) and (value.isprintable() or all(
        c.isprintable() or unicodedata.category(c) == "Zs" for c in value))


def check_printable(value, source: str, field: str, *, quote: bool = False,
                    error: type[Exception] = SafeLoadError) -> str:
    """``value`` when it is printable text, else ``error``: a ``str`` whose characters are printable
    (``isprintable()``) or spaces of any script (Unicode ``Zs``: a Japanese name may hold the full-width space).

    For every name read from a data file or a record that is later shown to a
    person (a map's or icon's name, a monster's, an animal's, a record's agent
    names): ``kakurega play`` and ``replay`` print them, so an ESC sequence
    there would reach the watcher's terminal. The message names ``source``,
    ``field`` and the rule; the value is quoted (escaped) only with ``quote``,
    else only its type is named, as loaders do for a file's content (:func:`shown`).

    >>> check_printable("Nurikabe", "booklet.yaml", "monster 0, field 'name'")
    'Nurikabe'
    """
    if is_printable_text(value):
        return value
    raise error(f"{source}: {field}: got {shown(value, quote)}; expected {PRINTABLE_RULE}")
