"""hwmovegen: a chess move generator built as hardware, after Sandström's table-driven algorithm.

The package's parts are ``hwmovegen.tables`` (geometry and ROM images),
``hwmovegen.rtl`` (Amaranth components), ``hwmovegen.sim`` (golden model and
simulation), ``hwmovegen.boards`` (targets, synthesis, dev boards) and
``hwmovegen.cli`` (the command line; ``python -m hwmovegen`` runs it).
"""
