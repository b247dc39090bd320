"""Records in, files out: what every stage reads and how it writes (docs/design.md §4).

Modules, lowest first: ``corpus`` (plain, .gz, .xz text; corpus paragraphs and token-per-line files),
``records`` (text/JSONL input records, ``batched``, vector files), ``atomic`` (the one atomic write; whether
an output file can be written), ``inputs`` (a file, folder, glob or ``-`` as one record stream),
``distributed`` (the same records read and mapped by Ray Data actors, ``pip install 'uner[ray]'``).
"""

from .atomic import atomic_dir, atomic_path, atomic_write_text, check_output, save_npy, write_npz
from .corpus import TOKEN_FILE_SUFFIXES, Sentence, Source, is_token_file, open_text, read_paragraphs, read_token_file
from .distributed import (INSTALL_HINT, MissingExtra, RayOptions, actor_count, batch_records, connect, local_path,
                          map_records, require_ray)
from .inputs import FileRecords, input_files
from .records import (InputError, Record, batched, begins_document, check_input, input_format, load_vectors,
                      read_records)

__all__ = [
    "INSTALL_HINT", "TOKEN_FILE_SUFFIXES", "FileRecords", "InputError", "MissingExtra", "RayOptions", "Record",
    "Sentence", "Source", "actor_count", "atomic_dir", "atomic_path", "atomic_write_text", "batch_records",
    "batched", "begins_document", "check_input", "check_output", "connect", "input_files", "input_format",
    "is_token_file", "load_vectors", "local_path", "map_records", "open_text", "read_paragraphs", "read_records",
    "read_token_file", "require_ray", "save_npy", "write_npz",
]
