"""The loader process of ``retro serve``: ``main([DATABASE, TARGET, DIGEST, NAME, ...])``.

Decompresses each database into its shared memory file ``TARGET`` (see
:mod:`retro.web.shared`) and says on standard error how it went, naming the file
``NAME``. The server starts it at low priority, dying with the server
(:data:`retro.web.shared.LOADER`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import DatabaseError
from .shared import fill


def main(argv: list[str]) -> int:
    """Fill each shared memory in turn (``argv``: DATABASE TARGET DIGEST NAME, repeated);
    the exit status (0 when every database loaded)."""
    status = 0
    for i in range(0, len(argv) - 3, 4):
        database, target, digest, name = Path(argv[i]), argv[i + 1], argv[i + 2], argv[i + 3]
        try:
            seconds = fill(database, target, digest)
        except (DatabaseError, OSError) as error:
            reason = " ".join(str(error).replace(str(database), name).split())
            print(f"retro serve: could not load {name} into shared memory ({reason}); "
                  "answering from disk", file=sys.stderr, flush=True)
            status = 1
            continue
        except KeyboardInterrupt:
            return 130
        print(f"retro serve: {name} loaded into shared memory in {seconds:.1f} s",
              file=sys.stderr, flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
