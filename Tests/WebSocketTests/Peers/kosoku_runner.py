"""Runs the `kosoku` command line (the Autobahn test suite) with the given arguments, exactly as the
`kosoku` console script does, but exits when its stdin reaches end of file, i.e. when the test process
that started it is gone, so an interrupted test run leaves no fuzzing server behind.

Usage: kosoku_runner.py [kosoku arguments...]
"""

import os
import sys
import threading

from kosoku._cli import main


def exit_with_parent():
    def watch():
        while os.read(0, 4096):
            pass
        os._exit(3)
    threading.Thread(target=watch, daemon=True).start()


if __name__ == "__main__":
    exit_with_parent()
    sys.argv[0] = "kosoku"
    main()
