"""What runs the backends and the model: :mod:`.compare` (streams against the model),
:mod:`.bench`, :mod:`.hwperft` (perft in hardware), :mod:`.formal` (SymbiYosys), :mod:`.cluster`
(the Dask tasks)."""
