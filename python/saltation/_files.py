"""Writing a file whole or not at all: a temporary file beside the target, then a rename."""
import os
import tempfile


def write_atomically(path, text):
    """Writes text (UTF-8) to path through a temporary file in the same directory and os.replace,
    so a reader never sees a partial file. The file gets the permissions a plain open() gives."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".saltation-", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's is 0600
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
