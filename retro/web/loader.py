"""The loader process of ``retro serve``: ``main([DATABASE, TARGET, DIGEST, ...])``.

Decompresses a database into the shared memory file ``TARGET`` (see
:mod:`retro.web.shared`) and says on standard error how it went. The server starts
it at low priority (:data:`retro.web.shared.LOADER`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import DatabaseError
from .shared import fill


def main(argv: list[str]) -> int:
    """Fill each shared memory in turn (``argv``: DATABASE TARGET DIGEST, repeated); the
    exit status (0 when every database loaded)."""
    status = 0
    for i in range(0, len(argv) - 2, 3):
        database, target, digest = Path(argv[i]), argv[i + 1], argv[i + 2]
        try:
            seconds = fill(database, target, digest)
        except (DatabaseError, OSError) as error:
            print(f"retro serve: could not load {database.name} into shared memory ({error}); "
                  "answering from disk", file=sys.stderr, flush=True)
            status = 1
            continue
        except KeyboardInterrupt:
            return 130
        print(f"retro serve: {database.name} loaded into shared memory in {seconds:.1f} s",
              file=sys.stderr, flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
