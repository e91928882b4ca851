"""Hand-made positions, one per legality rule: (name, FEN, moves that must be legal, moves that must not)."""

RULES = [
    ("pin on a file", "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1", ["e2e7", "e2e4"], ["e2d2", "e2f2"]),
    ("pin on a rank", "4k3/8/8/8/8/8/8/r2NK3 w - - 0 1", ["e1e2"], ["d1c3", "d1e3", "d1f2"]),
    ("pin on a diagonal", "4k3/8/8/8/1b6/8/3Q4/4K3 w - - 0 1", ["d2c3", "d2b4"], ["d2d3", "d2e2", "d2d1"]),
    ("pin on the other diagonal", "4k3/8/8/8/7b/8/5R2/4K3 w - - 0 1", ["e1d1"], ["f2f3", "f2g2", "f2f1"]),
    ("pinned pawn takes its pinner", "4k3/8/8/8/8/2b5/3P4/4K3 w - - 0 1", ["d2c3"], ["d2d3", "d2d4"]),
    ("double check", "4k3/8/8/8/8/5n1R/8/r3K3 w - - 0 1", ["e1e2", "e1f2"], ["h3f3", "h3h1", "e1f1"]),
    ("check by a knight", "4k3/8/8/8/8/3n4/2B5/4K2R w K - 0 1", ["c2d3", "e1f1"], ["e1g1", "h1h2"]),
    ("check by a pawn", "4k3/8/8/8/8/8/5p2/4K2R w K - 0 1", ["e1f2", "e1d2"], ["e1g1", "h1f1", "h1h2"]),
    ("king retreats along the checking ray", "4k3/8/8/8/8/8/8/r3K3 w - - 0 1", ["e1e2", "e1d2"], ["e1f1", "e1d1"]),
    ("castling out of check", "4r1k1/8/8/8/8/8/8/4K2R w K - 0 1", ["e1f1"], ["e1g1"]),
    ("castling through check", "5rk1/8/8/8/8/8/8/4K2R w K - 0 1", ["e1d1"], ["e1g1", "e1f1"]),
    ("castling into check", "k5r1/8/8/8/8/8/8/4K2R w K - 0 1", ["e1f1"], ["e1g1"]),
    ("queenside: b1 may be attacked", "1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1", ["e1c1"], []),
    ("en passant exposing the king on the rank", "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1", ["b5b6"], ["b5c6"]),
    ("en passant exposing the king on a diagonal", "7k/5b2/8/3pP3/8/1K6/8/8 w - d6 0 1", ["e5e6"], ["e5d6"]),
    ("en passant removes the checking pawn", "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", ["e4d3"], ["e4e3"]),
    ("en passant along the pin", "4k3/2b5/8/3pP3/8/6K1/8/8 w - d6 0 1", ["e5d6"], ["e5e6"]),
    ("a promotion blocks the check", "r6K/2P5/8/8/8/8/8/k7 w - - 0 1", ["c7c8q", "c7c8n"], ["h8g8"]),
]
