"""Compressed input: gzip, bzip2, xz and zip files read as the file inside, found by their first bytes.

`open_file` gives a file's bytes decompressed as they are read (a plain file as it is), `decompress` the
bytes of data in memory, `unpacked_zip` a zip archive of several files as a temporary folder. Each counts the
bytes it gives: more than `MAX_EXPANSION` times the compressed size, and more than `ALWAYS_ALLOWED`, is a
decompression bomb, refused with one InputError before it fills the memory or the disk.

>>> import gzip
>>> decompress(gzip.compress(b'{"d1": {}}'), "x.json.gz")
(b'{"d1": {}}', 'gzip')
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import tempfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ..errors import InputError

MAGIC: dict[bytes, str] = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bzip2",
    b"\xfd7zXZ\x00": "xz",
    b"PK\x03\x04": "zip",
}
"""The first bytes of each compression read, and its name."""
SUFFIXES = (".gz", ".bz2", ".xz", ".zip")
"""The file extensions of the compressions (a name's format is the extension inside them: ``.jsonl.gz``)."""
MAX_EXPANSION = 100
"""How many times its compressed size a file may grow beyond `ALWAYS_ALLOWED`. Real DST data grows 17-59
times (SGD's dialogue files, TRADE's predictions: gzip, bzip2 and xz at their strongest)."""
ALWAYS_ALLOWED = 256 * 1024 * 1024
"""The decompressed bytes a file may always have (256 MiB), whatever its compressed size."""
DAMAGED = (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile, NotImplementedError)
"""What the standard library's decompressors raise on damaged or cut-off data (gzip.BadGzipFile is an OSError;
NotImplementedError: a zip member compressed in a way zipfile cannot read)."""
SKIPPED_MEMBERS = ("__MACOSX/",)
"""Folders of a zip archive that are not data (the resource forks macOS's Archive Utility adds)."""


def compression_of(head: bytes) -> str | None:
    """The compression whose magic number starts `head` (``gzip``, ``bzip2``, ``xz``, ``zip``), or None."""
    return next((name for magic, name in MAGIC.items() if head.startswith(magic)), None)


def limit_for(compressed_size: int) -> int:
    """The most bytes a file of `compressed_size` compressed bytes may decompress to."""
    return max(ALWAYS_ALLOWED, MAX_EXPANSION * compressed_size)


class SeveralFiles(InputError):
    """A zip archive of several data files, opened as one file: `unpacked_zip` makes it a folder."""


def _bomb(compression: str, compressed_size: int, where: str | None) -> InputError:
    return InputError(
        f"the {compression} data grows past {limit_for(compressed_size) / 2**20:,.0f} MiB from "
        f"{compressed_size:,} compressed bytes, more than {MAX_EXPANSION} times its size: refused as a "
        "decompression bomb (decompress it yourself if it is real data)",
        source=where,
    )


def unreadable(error: OSError, where: str | None) -> InputError:
    """The one error of a file that cannot be opened or read."""
    return InputError(f"cannot read the file: {error.strerror or error}", source=where)


def _damaged(compression: str, where: str | None) -> InputError:
    return InputError(f"the {compression} data is damaged or cut short: it cannot be decompressed", source=where)


class _Counted(io.RawIOBase):
    """A decompressing stream's bytes, counted: past `limit` it raises the bomb's InputError, and a
    decompressor's failure becomes the damaged data's one InputError."""

    def __init__(
        self, stream: BinaryIO, compression: str, compressed_size: int, where: str | None, *closing: BinaryIO
    ) -> None:
        self._stream, self._closing = stream, closing
        self._compression, self._compressed_size, self._where = compression, compressed_size, where
        self._left = limit_for(compressed_size)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:
        try:
            count = self._stream.readinto(buffer)
        except DAMAGED:
            raise _damaged(self._compression, self._where) from None
        self._left -= count
        if self._left < 0:
            raise _bomb(self._compression, self._compressed_size, self._where)
        return count

    def close(self) -> None:
        if not self.closed:
            for stream in (self._stream, *self._closing):
                stream.close()
        super().close()


def _decompressing(raw: BinaryIO, compression: str, compressed_size: int, where: str | None) -> io.BufferedReader:
    """`raw` (a compressed file, at its start) read decompressed; a zip archive must hold one file."""
    opened: list[BinaryIO] = [raw]
    try:
        if compression == "zip":
            archive = zipfile.ZipFile(raw)
            opened.append(archive)
            members = data_members(archive)
            if len(members) != 1:
                raise SeveralFiles(
                    f"the zip archive holds {len(members)} data files where one file is read",
                    source=where,
                )
            stream = archive.open(members[0])
        else:
            opener = {"gzip": lambda f: gzip.GzipFile(fileobj=f, mode="rb"), "bzip2": bz2.BZ2File, "xz": lzma.LZMAFile}
            stream = opener[compression](raw)
    except (*DAMAGED, InputError) as error:
        for handle in reversed(opened):
            handle.close()
        raise error if isinstance(error, InputError) else _damaged(compression, where) from None
    return io.BufferedReader(_Counted(stream, compression, compressed_size, where, *reversed(opened)))


def data_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The files of a zip archive that hold data: no folder entries, hidden files or macOS resource forks."""
    return [
        info
        for info in archive.infolist()
        if not info.is_dir()
        and not info.filename.startswith(SKIPPED_MEMBERS)
        and not PurePosixPath(info.filename).name.startswith(".")
    ]


def open_file(path: Path, where: str | None) -> tuple[BinaryIO, str | None]:
    """A file opened for reading, decompressed as it is read where it is compressed, and its compression
    (`compression_of`). A plain file's handle is the file's own; a zip archive of several files raises
    `SeveralFiles`."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 - returned open: the caller closes it
        compression = compression_of(raw.read(8))
        raw.seek(0)
        if compression is None:
            return raw, None
        size = os.path.getsize(path)
    except OSError as error:
        raise unreadable(error, where) from None
    return _decompressing(raw, compression, size, where), compression


def decompress(data: bytes, where: str | None) -> tuple[bytes, str | None]:
    """`data` decompressed where it starts with a compression's magic number (else `data` itself), and the
    compression (`open_file`'s, for data in memory)."""
    compression = compression_of(data[:8])
    if compression is None:
        return data, None
    with _decompressing(io.BytesIO(data), compression, len(data), where) as stream:
        return stream.read(), compression


def name_inside(path: Path) -> Path:
    """A file's name without its compression's extension: ``run.jsonl`` for ``run.jsonl.gz``."""
    return path.with_suffix("") if path.suffix.lower() in SUFFIXES else path


def unpacked_zip(source: Path | bytes, where: str | None) -> tempfile.TemporaryDirectory:
    """The data files of a zip archive (a file, or bytes) written into a new temporary folder, removed with the
    returned object; member paths are kept, and the bomb guard counts every byte written."""
    folder = tempfile.TemporaryDirectory(prefix="dst-metrics-zip-")
    try:
        size = len(source) if isinstance(source, bytes) else source.stat().st_size
        with zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source) as archive:
            left = limit_for(size)
            for info in data_members(archive):
                parts = [part for part in PurePosixPath(info.filename).parts if part not in ("", ".", "..", "/")]
                if not parts:
                    continue
                target = Path(folder.name, *parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as member, open(target, "wb") as out:
                    while chunk := member.read(1 << 20):
                        left -= len(chunk)
                        if left < 0:
                            raise _bomb("zip", size, where)
                        out.write(chunk)
    except DAMAGED:
        folder.cleanup()
        raise _damaged("zip", where) from None
    except InputError:
        folder.cleanup()
        raise
    return folder


def folder_inside(root: Path) -> Path:
    """The folder of an unpacked archive that holds its files: the one folder at the top, if that is all there is."""
    entries = list(root.iterdir())
    while len(entries) == 1 and entries[0].is_dir():
        root = entries[0]
        entries = list(root.iterdir())
    return root
