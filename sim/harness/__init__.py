"""What every simulator of the hardware shares: the wire formats of positions, moves and counters
(:mod:`.wire`), cycle traces (:mod:`.trace`), tool paths and the cache (:mod:`.toolchain`), and
the pysim testbenches (:mod:`.pysim`)."""
