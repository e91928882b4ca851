"""The programs measured beside the hardware, found at run time and never vendored: Stockfish
(:mod:`.stockfish`) and Gigantua (:mod:`.gigantua`)."""
