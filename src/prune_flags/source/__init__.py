"""Source files: finding them, reading and writing them byte-exactly, their words, parsing."""
