"""What every simulator of the hardware shares: the wire formats of positions, moves and counters
(:mod:`.wire`), cycle traces (:mod:`.trace`), tool paths and the cache (:mod:`.toolchain`), the
pysim testbenches (:mod:`.pysim`), and the simulators' interfaces with their pysim and model
implementations (:mod:`.backend`)."""
