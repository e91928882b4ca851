"""The golden model: the exact move stream the hardware must emit.

The model walks the ROM images of a :mod:`hwmovegen.tables` layout, one table
node per step, exactly as the walker core does; it never asks python-chess for
moves. python-chess is only the FEN parser here and, in the tests, the
independent reference.

Emission order (part of the specification, checked move for move):

1. the pieces of the side to move in ascending square order, a1, b1, ..., h8;
2. for each piece, its chain in table order (see :func:`hwmovegen.tables.rays`);
3. a promotion node emits four moves: queen, rook, bishop, knight.

Counters: ``steps`` is the number of table nodes visited (one per clock in the
hardware), ``moves`` the number of moves emitted, ``promotion_nodes`` the
number of promotion nodes that emitted (each costs three extra cycles).

Ordered generation (``generate(..., order=...)``): the same stream with check flags set,
sorted for a search (captures most valuable victim first, least valuable attacker first, then
promotions, then the rest) or cut to the captures; the order and the check rule are defined in
:mod:`.order`.
"""

from dataclasses import dataclass, field, replace

import chess

from ...tables import BLACK, CastleRight, NodeKind, code_is_black, TableKind, get_layout, castle_right_for, table_kind, piece_code, rights_kept
from .legality import king_safe_after, legal_moves, make_squares, setup_cycles
from ...tables.contracts import CAPTURE_BINS, core_contract, ORDER_LATENCY, ORDERS, PROMOTION_ORDER
from .order import gives_check, order_bin, order_moves

__all__ = ["Move", "Position", "PositionError", "Generation", "generate", "check_board", "echo_fen", "parse_fen",
           "cycle_bound", "work", "FEN_FIELDS", "leaf_count", "gives_check", "order_bin", "order_moves"]

# board.status() problems refused: those that make generation meaningless, and those no game
# can reach (more than 8 pawns or 16 pieces a side, more than two checkers, castling rights
# without the king and that rook at home, which the hardware would otherwise drop unseen).
# python-chess's STATUS_IMPOSSIBLE_CHECK is accepted: a check the last move cannot have given
# (two sliders on one line, an en-passant square beside an older check) leaves generation well
# defined, and the perft suite (B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1) and the legality tests hold such
# positions.
_REJECTED_STATUS = (
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_NO_WHITE_KING, "white has no king"),
    (chess.STATUS_NO_BLACK_KING, "black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "a side has more than one king"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "white has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "black has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "white has more than 16 pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "black has more than 16 pieces"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "pawns on the first or last rank"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_TOO_MANY_CHECKERS, "more than two pieces give check"),
    (chess.STATUS_INVALID_EP_SQUARE, "invalid en-passant square"),
)

_CASTLE_BITS = ((chess.BB_H1, CastleRight.WHITE_KINGSIDE), (chess.BB_A1, CastleRight.WHITE_QUEENSIDE),
                (chess.BB_H8, CastleRight.BLACK_KINGSIDE), (chess.BB_A8, CastleRight.BLACK_QUEENSIDE))
_CASTLE_LETTERS = ((chess.BB_H1, "K"), (chess.BB_A1, "Q"), (chess.BB_H8, "k"), (chess.BB_A8, "q"))


def castling_bits(board):
    """The CastleRight bits of a python-chess Board (its cleaned castling rights)."""
    rights_mask = board.clean_castling_rights()
    return int(sum(bit for mask, bit in _CASTLE_BITS if rights_mask & mask))


class PositionError(ValueError):
    """A FEN or position the generator cannot or must not process."""


def check_board(board, castling=None):
    """Raise :class:`PositionError` if generation is meaningless for ``board`` or no game reaches it.
    ``castling``: the FEN's castling field as written; python-chess drops a ``Q``/``q`` whose rook
    is nowhere on the back rank before any status can see it, so the letters are checked here."""
    if board.chess960:
        raise PositionError("Chess960 positions are not supported")
    status = board.status()
    problems = [text for bit, text in _REJECTED_STATUS if status & bit]
    if castling is not None:
        letters = "".join(letter for letter in dict.fromkeys(castling) if letter != "-" and not _at_home(board, letter))
    elif status & chess.STATUS_BAD_CASTLING_RIGHTS:
        dropped = board.castling_rights & ~board.clean_castling_rights()
        letters = "".join(letter for mask, letter in _CASTLE_LETTERS if dropped & mask) or board.castling_xfen()
    else:
        letters = ""
    if letters:
        problems.append(f"castling rights {letters} without the king and that rook on their squares")
    if problems:
        raise PositionError(f"impossible position: {'; '.join(problems)}")


# the king's and the rook's squares of each castling letter (standard chess: X-FEN's file letters
# name a rook that is not in a corner, which only Chess960 has)
_CASTLE_HOMES = {"K": (chess.E1, chess.H1), "Q": (chess.E1, chess.A1),
                 "k": (chess.E8, chess.H8), "q": (chess.E8, chess.A8)}


def _at_home(board, letter):
    if letter not in _CASTLE_HOMES:
        return False
    king, rook = _CASTLE_HOMES[letter]
    color = letter.isupper()
    return (board.piece_at(king) == chess.Piece(chess.KING, color)
            and board.piece_at(rook) == chess.Piece(chess.ROOK, color))


def echo_fen(board):
    """The FEN of ``board`` as the hardware sees it: with its en-passant square whenever it has
    one (python-chess's ``Board.fen()`` drops a square no legal capture can use, yet the
    hardware holds it and may emit a pseudo-legal en-passant capture to it)."""
    return board.fen(en_passant="fen")


# a FEN's six fields; one given in part is refused, not completed with defaults, since the
# side to move, the castling rights and the en-passant square change the moves
FEN_FIELDS = ("piece placement", "side to move", "castling", "en passant", "halfmove clock", "fullmove number")


def parse_fen(fen):
    """A validated python-chess Board for ``fen`` (all six fields); :class:`PositionError` otherwise."""
    try:
        board = chess.Board(fen)
    except ValueError as error:
        raise PositionError(f"bad FEN {fen!r}: {error}") from None
    fields = fen.split()
    if len(fields) < len(FEN_FIELDS):
        missing = FEN_FIELDS[len(fields):]
        raise PositionError(f"bad FEN {fen!r}: no {', '.join(missing[:-1]) + ' or ' if len(missing) > 1 else ''}"
                            f"{missing[-1]} field{'s' if len(missing) > 1 else ''} (a FEN has six)")
    check_board(board, castling=fields[2])
    return board


@dataclass(frozen=True, slots=True)
class Move:
    """One emitted move, as the hardware's Move payload carries it."""
    frm: int
    to: int
    promotion: int = 0          # python-chess piece type, 0 for none
    capture: bool = False
    double: bool = False
    en_passant: bool = False
    castle: bool = False
    check: bool = False         # gives direct check (set only by an ordered generation, :mod:`.order`)

    def uci(self):
        text = chess.SQUARE_NAMES[self.frm] + chess.SQUARE_NAMES[self.to]
        return text + chess.piece_symbol(self.promotion) if self.promotion else text

    def to_chess(self):
        return chess.Move(self.frm, self.to, self.promotion or None)

    def __str__(self):
        return self.uci()


@dataclass(frozen=True)
class Position:
    """What the board RAM and state registers hold."""
    squares: tuple          # 64 piece codes, see hwmovegen.tables.piece_code
    white_to_move: bool
    castling: int           # CastleRight bits
    ep_square: int | None

    @classmethod
    def from_board(cls, board, check=True):
        if check:
            check_board(board)
        squares = [0] * 64
        for square, piece in board.piece_map().items():
            squares[square] = piece_code(piece.piece_type, piece.color == chess.BLACK)
        return cls(tuple(squares), board.turn == chess.WHITE, castling_bits(board), board.ep_square)

    @classmethod
    def from_fen(cls, fen):
        return cls.from_board(parse_fen(fen), check=False)

    def planes(self):
        """The four bitplanes of the board RAM: bit k of every square's code in plane k."""
        return [sum(1 << square for square, code in enumerate(self.squares) if code >> bit & 1)
                for bit in range(4)]

    def state(self):
        """The state registers' fields (``hwmovegen.rtl.types.BoardState``)."""
        ep = self.ep_square
        return {"white_to_move": int(self.white_to_move), "castling": self.castling,
                "ep_valid": int(ep is not None), "ep_square": ep or 0}

    def make(self, move):
        """The position after ``move`` (a model Move of this position): the squares as
        :func:`.legality.make_squares` leaves them, the side to move changed, the castling
        rights of the squares the move leaves and reaches dropped, the en-passant square
        behind a double push."""
        squares = make_squares(self.squares, move, not self.white_to_move)
        return Position(tuple(squares), not self.white_to_move,
                        self.castling & rights_kept(move.frm) & rights_kept(move.to),
                        (move.frm + move.to) // 2 if move.double else None)

    def own_squares(self):
        return [sq for sq, code in enumerate(self.squares) if code and code_is_black(code) != self.white_to_move]


@dataclass
class Generation:
    moves: list = field(default_factory=list)
    steps: int = 0              # the core's unit of work: table nodes (the model, the walker), pieces (fast)
    promotion_nodes: int = 0
    cycles: int | None = None   # hardware backends only
    stalls: int | None = None   # hardware backends only
    generated: int | None = None    # legal (model): the pseudo-legal moves the core generated
    setup: int = 0                  # legal (model): the legality stage's setup cycles
    movers: int | None = None       # legal (model): own pieces with pseudo-legal moves
    captures: int | None = None     # ordered (model): the moves in the capture bins (:mod:`.order`)
    ordered: str | None = None      # ordered (model): the order, one of ORDERS
    streamed: int | None = None     # ordered (model): the moves that reached the ordering stage

    @property
    def pieces(self):
        """Own pieces with at least one (pseudo-legal) move: the fast core's unit of work."""
        return self.movers if self.movers is not None else len({move.frm for move in self.moves})

    def counters(self):
        """The counters a backend measured, for JSON output."""
        out = {"steps": self.steps, "promotion_nodes": self.promotion_nodes}
        if self.cycles is not None:
            out.update(cycles=self.cycles, stalls=self.stalls)
        return out

    def uci(self):
        return [m.uci() for m in self.moves]


def work(generation, core="walker"):
    """The core's unit of work for the model's ``generation``: what its ``steps`` counter counts."""
    return getattr(generation, core_contract(core).work)


def cycle_bound(generation, core="walker"):
    """The most cycles ``core`` may take for ``generation`` (the model's result for a
    position) with the stream's ``ready`` held high; stall cycles come on top.

    The core's terms are its :class:`~hwmovegen.tables.contracts.CoreContract`'s. The walker
    (``latency`` None): one cycle to sample ``start``, one to read the first head, one to
    present it, one per table node, one for the last move to leave the FIFO (``fixed``); each
    emitting promotion node can add three (``per_promotion``: its four moves leave one per cycle).

    The fast core: one cycle per move, plus a fixed pipeline latency (``latency``; ``empty``
    for a position without moves): the moves leave back to back, whatever the pieces without
    moves and the empty rays.

    legal (``generation.setup`` set): the core's moves wait in its output FIFO for the
    legality stage's setup (:func:`.legality.setup_cycles`: ``LEGAL_SETUP_CYCLES``, 16 cycles for
    every position, en passant included). The fast core's stream then passes the stage one
    move a cycle, one cycle later for the stage's output register: ``setup + moves + 2``
    cycles when the setup holds it back, its own ``moves + latency`` plus one when it does not,
    whichever is more. The walker, which stalls on its FIFO during the setup, may lose at
    most the setup.

    ordered (``generation.ordered`` set): the ordering stage (:mod:`hwmovegen.rtl.order`)
    emits a position's moves once its input is complete: the bound of the stream it takes,
    then one cycle per ordered move, plus ``ORDER_LATENCY`` (the position closed, its first
    move read from its bank, ``done``).
    """
    if generation.ordered:
        unordered = replace(generation, ordered=None, moves=[None] * generation.streamed)
        return cycle_bound(unordered, core) + len(generation.moves) + ORDER_LATENCY
    moves = generation.generated if generation.setup else len(generation.moves)
    terms = core_contract(core)
    if terms.latency is None:
        bound = generation.steps + terms.per_promotion * generation.promotion_nodes + terms.fixed
        return bound + generation.setup
    bound = moves + terms.latency if moves else terms.empty
    return max(bound + 1, generation.setup + moves + 2) if generation.setup else bound


def generate(position, layout="dense", legal=False, order=None):
    """Walk the tables for ``position`` and return the emitted stream and counters;
    ``legal``: only the legal moves, in the same order (:mod:`.legality`), with the
    legality setup counted; ``order`` (one of ``ORDERS``): the moves (the legal ones when
    ``legal``) with check flags, in that order (:mod:`.order`), the counters unchanged."""
    if order is not None:
        if order not in ORDERS:
            raise ValueError(f"unknown order {order!r} (choose from {', '.join(ORDERS)})")
        result = generate(position, layout, legal)
        result.streamed, result.movers = len(result.moves), result.pieces     # what the core streamed
        result.captures = sum(order_bin(position, move) < CAPTURE_BINS for move in result.moves)
        result.moves, result.ordered = order_moves(position, result.moves, order), order
        return result
    if legal:
        result = generate(position, layout)
        result.generated, result.setup, result.movers = len(result.moves), setup_cycles(result.moves), result.pieces
        result.moves = legal_moves(position, result.moves)
        return result
    if isinstance(layout, str):
        layout = get_layout(layout)
    squares = position.squares
    stm_black = 0 if position.white_to_move else BLACK
    ep = position.ep_square
    result = Generation()
    moves = result.moves
    steps = 0
    for frm in position.own_squares():
        kind = table_kind(squares[frm])
        table = layout.decoded_table(kind == TableKind.QUEEN)
        addr = layout.head(kind, frm)
        while True:
            node = table[addr]
            steps += 1
            to = node.to
            target = squares[to]
            empty = target == 0
            opponent = not empty and (target & BLACK) != stm_black
            node_kind = node.kind
            follow_pos = empty
            if node_kind == NodeKind.NORMAL:
                if empty or opponent:
                    moves.append(Move(frm, to, capture=opponent))
            elif node_kind == NodeKind.PUSH:
                if empty:
                    moves.append(Move(frm, to))
            elif node_kind == NodeKind.DOUBLE:
                if empty:
                    moves.append(Move(frm, to, double=True))
            elif node_kind == NodeKind.CAPTURE:
                if opponent:
                    moves.append(Move(frm, to, capture=True))
                elif empty and to == ep:
                    moves.append(Move(frm, to, capture=True, en_passant=True))
            elif node_kind == NodeKind.PROMO_PUSH or node_kind == NodeKind.PROMO_CAPTURE:
                if empty if node_kind == NodeKind.PROMO_PUSH else opponent:
                    result.promotion_nodes += 1
                    for piece in PROMOTION_ORDER:
                        moves.append(Move(frm, to, piece, capture=opponent))
            else:  # castling: the right must be held by the side to move
                right = castle_right_for(to)
                held = bool(position.castling & right) and (to >= 56) == bool(stm_black)
                follow_pos = empty and held
                if node_kind == NodeKind.CASTLE and follow_pos:
                    moves.append(Move(frm, to, castle=True))
            if follow_pos:
                if node.pos_end:
                    break
                addr = node.pos_addr
            else:
                if node.dir_end:
                    break
                addr = node.dir_addr
    result.steps = steps
    return result


def leaf_count(position, move, layout="dense"):
    """The leaves below a pseudo-legal ``move`` of ``position`` one ply on: the legal moves of
    the position it leads to, or 0 if the move leaves its own king attacked (the rule the
    hardware's :class:`~hwmovegen.rtl.leafcount.LeafCounter` follows, reached here by the
    model's own method: make the move, walk the tables, test the king)."""
    if not king_safe_after(position, move):
        return 0
    return len(generate(position.make(move), layout, legal=True).moves)
