"""The parameterised family of Nash equilibria of three-player Kuhn poker (Szafron, Gibson &
Sturtevant, AAMAS 2013), which the ACPC server's ``kuhn_3p_equilibrium_player`` plays: the
table baseline ``kuhn3p_eq[:name=value,...]``.

Cards J < Q < K < A (ranks 0..3), ante 1, one bet of 1; position 0 acts first. The parameters
keep the paper's names: ``b`` is position 1's probability of the aggressive action (bet, or call
facing a bet), ``c`` position 2's, the first digit the card (1 = J .. 4 = A), the second the
decision (1: the first action; 2: facing the first player's bet; position 1's 3 and 4: after
check, check, bet and the first player's fold / call; position 2's 3 and 4: after bet and
position 1's fold / call). Position 0 always checks, calls with K half the time after check,
bet, fold, and otherwise calls with A only. The other decisions follow from the parameters:

    b41 = 2 b11 + 2 b21        c21 = 1/2 - c11
    b33 = (1 + b11 + 2 b21) / 2                        when c11 = 0
        = (1 + 2 b11 + b21) / 2 - b23 (1 - b21)        when c11 > 0

and every member is an equilibrium inside these bounds (three sub-families by c11):

    c11 = 0:            0 <= b11 <= b21 <= 1/4, b23 = 0
    0 < c11 < 1/2:      b21 = b11 <= min(1/4, (2 - 3 c11) / (1 + 4 c11)), b23 = 0
    c11 = 1/2:          b11 <= 1/4, b21 <= min(b11, 1/2 - 2 b11), b23 <= (b11 - b21) / (2 (1 - b21))
    off the path (position 0 never bets): 1/2 <= b32 + c33 <= U,
        U = (2 + 3 b11 + 4 b21 + 2 c11 (b11 - b21)) / 4, and c34 in [0, 1]

Unset parameters: c11 = 0.33, b11 = 1/6 (within its range), b21 = b11 (0 where c11 = 1/2),
b23 = 0, c33 = 0, b32 = U - c33 (at most 1), c34 = 3/4: plain ``kuhn3p_eq`` is the member the
ACPC server's script of 0 < c11 < 1/2 plays (its b32 0.791667 is 19/24 rounded up).

The seats' values: position 1 gets -1/48 in every member, position 0
-(1 + 2 b21 + 4 c11 (b11 - b21)) / 48 and position 2 the rest (the game is zero-sum). The
bounds were derived here from the players' indifference conditions and checked with
OpenSpiel's NashConv (tests/test_kuhn3p_equilibrium.py), not copied from the paper.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..errors import ConfigError, SolverkitError

#: the table baseline's name; ``kuhn3p_eq:c11=0.5,b11=0.25`` sets parameters
NAME = "kuhn3p_eq"
#: a parameter this close outside a bound is taken as the bound (the ACPC scripts round to 6 decimals)
SLACK = 1e-6
#: the parameters a spec may set, in the ACPC player's order
PARAMS = ("c11", "b11", "b21", "b23", "b32", "c33", "c34")


@dataclass(frozen=True)
class Kuhn3pParams:
    """One member of the family: the free parameters (None: the default of its sub-family)."""

    c11: float = 0.33  # the ACPC server script's member of 0 < c11 < 1/2
    b11: float | None = None
    b21: float | None = None
    b23: float | None = None
    b32: float | None = None
    c33: float = 0.0
    c34: float = 0.75

    def label(self) -> str:
        return f"{NAME}:" + ",".join(f"{f.name}={_short(getattr(self, f.name))}" for f in fields(self))


def _short(x: float) -> str:
    return f"{x:.6g}"


def _check(name: str, value: float, lo: float, hi: float) -> float:
    """`value` in [lo, hi] (within SLACK, then clamped), else a one-line ConfigError."""
    if not (lo - SLACK <= value <= hi + SLACK):
        raise ConfigError(f"{NAME} parameter {name} = {_short(value)} is out of range: valid {_short(lo)} .. "
                          f"{_short(hi)} here (docs/play.md, the three-player Kuhn equilibrium family)")
    return min(max(value, lo), hi)


def resolve(p: Kuhn3pParams) -> Kuhn3pParams:
    """Every parameter set and checked against the family's bounds (ConfigError naming the first
    bad one and its valid range, given the ones before it)."""
    c11 = _check("c11", float(p.c11), 0.0, 0.5)
    if c11 == 0.0:
        b11 = _check("b11", 1 / 6 if p.b11 is None else float(p.b11), 0.0, 0.25)
        b21 = _check("b21", b11 if p.b21 is None else float(p.b21), b11, 0.25)
        b23 = _check("b23", 0.0 if p.b23 is None else float(p.b23), 0.0, 0.0)
    elif c11 < 0.5:
        top = min(0.25, (2 - 3 * c11) / (1 + 4 * c11))
        b11 = _check("b11", min(1 / 6, top) if p.b11 is None else float(p.b11), 0.0, top)
        b21 = _check("b21", b11 if p.b21 is None else float(p.b21), b11, b11)
        b23 = _check("b23", 0.0 if p.b23 is None else float(p.b23), 0.0, 0.0)
    else:
        b11 = _check("b11", 1 / 6 if p.b11 is None else float(p.b11), 0.0, 0.25)
        b21 = _check("b21", 0.0 if p.b21 is None else float(p.b21), 0.0, min(b11, 0.5 - 2 * b11))
        b23 = _check("b23", 0.0 if p.b23 is None else float(p.b23), 0.0, (b11 - b21) / (2 * (1 - b21)))
    top = (2 + 3 * b11 + 4 * b21 + 2 * c11 * (b11 - b21)) / 4  # U: b32 + c33 at most
    c33 = _check("c33", float(p.c33), 0.0, min(1.0, top))
    b32 = _check("b32", min(1.0, top - c33) if p.b32 is None else float(p.b32), max(0.0, 0.5 - c33),
                 min(1.0, top - c33))
    c34 = _check("c34", float(p.c34), 0.0, 1.0)
    return Kuhn3pParams(c11, b11, b21, b23, b32, c33, c34)


def parse_spec(spec: str) -> Kuhn3pParams | None:
    """The member a player spec names (``kuhn3p_eq`` or ``kuhn3p_eq:c11=0.5,b11=0.25``), resolved;
    None when `spec` is not this baseline."""
    name, sep, rest = spec.partition(":")
    if name != NAME:
        return None
    given = {}
    for item in (rest.split(",") if sep and rest.strip() else []):
        key, eq, value = item.partition("=")
        key = key.strip()
        if key not in PARAMS or not eq:
            raise ConfigError(f"{NAME} parameter {item.strip()!r:.40}: expected NAME=VALUE with NAME one of "
                              f"{', '.join(PARAMS)}")
        try:
            given[key] = float(value)
        except ValueError:
            raise ConfigError(f"{NAME} parameter {key} = {value.strip()!r:.30} is not a number") from None
    return resolve(Kuhn3pParams(**given))


def decisions(p: Kuhn3pParams, check: bool = True) -> dict[str, list[float]]:
    """Each decision's probability of the aggressive action (bet, or call facing a bet) for
    J, Q, K, A, by the ACPC betting string before it (the acting position is its place in the
    betting: '' 0, 'c'/'r' 1, 'cc'/'cr'/'rf'/'rc' 2, 'crf'/'crc'/'ccr' 0, 'ccrf'/'ccrc' 1).
    check=False takes every parameter as given (all set), in or out of the family's bounds."""
    if check:
        p = resolve(p)
    b41 = 2 * p.b11 + 2 * p.b21
    if p.c11 == 0.0:
        b33 = (1 + p.b11 + 2 * p.b21) / 2
    else:
        b33 = (1 + 2 * p.b11 + p.b21) / 2 - p.b23 * (1 - p.b21)
    return {
        "": [0.0, 0.0, 0.0, 0.0], "crf": [0.0, 0.0, 0.5, 1.0], "crc": [0.0, 0.0, 0.0, 1.0],
        "ccr": [0.0, 0.0, 0.0, 1.0],
        "c": [p.b11, p.b21, 0.0, b41], "r": [0.0, 0.0, p.b32, 1.0], "ccrf": [0.0, p.b23, b33, 1.0],
        "ccrc": [0.0, 0.0, 0.0, 1.0],
        "cc": [p.c11, 0.5 - p.c11, 0.0, 1.0], "cr": [0.0, 0.0, 0.0, 1.0], "rf": [0.0, 0.0, p.c33, 1.0],
        "rc": [0.0, 0.0, p.c34, 1.0],
    }


def seat_values(p: Kuhn3pParams) -> list[float]:
    """Each position's expected chips per game when all three play the member (closed form)."""
    p = resolve(p)
    v0 = -(1 + 2 * p.b21 + 4 * p.c11 * (p.b11 - p.b21)) / 48
    v1 = -1 / 48 - p.b23 * (1 - p.b21) * (1 - 2 * p.c11) / 12  # b23 > 0 only where c11 = 1/2: -1/48
    return [v0, v1, -v0 - v1]


def check_game(tree_game) -> None:
    """ConfigError unless `tree_game` plays three-player Kuhn (kuhn.limit.3p's rules)."""
    from .nplayer import load_table
    from .table_keys import game_table

    try:
        gd = game_table(tree_game)
    except SolverkitError:  # no ACPC table at all: the same answer
        gd = None
    want = load_table("kuhn.limit.3p")
    if gd is None or {**gd.__dict__, "source": ""} != {**want.__dict__, "source": ""}:
        raise ConfigError(f"{NAME} plays three-player Kuhn poker (kuhn.limit.3p's rules: [game] name = \"kuhn\", "
                          f"players = 3), not game {getattr(tree_game, 'name', tree_game)!r}")


def equilibrium_policy(tree_game, p: Kuhn3pParams) -> list[np.ndarray]:
    """Each position's policy array of the member over `tree_game`'s layout (kuhn_tree with 3
    players, or OpenSpiel's kuhn_poker(players=3) / universal_poker of the same rules): every
    decision's match state is found among the game's information sets by the table's key map."""
    from .acpc_protocol import parse_matchstate
    from .cards import card_name
    from .nplayer import LimitState
    from .table_keys import game_table, key_map

    check_game(tree_game)
    gd, keys, table = game_table(tree_game), key_map(tree_game), decisions(p)
    out = [np.zeros(tree_game.layout(q).size) for q in range(3)]
    stack = [LimitState(gd)]
    while stack:
        st = stack.pop()
        if st.finished:
            continue
        pos, betting = st.current_player(), st.betting()
        for rank in range(4):
            holes = "|".join(card_name(rank, 1, 4) if q == pos else "" for q in range(3))
            state = parse_matchstate(f"MATCHSTATE:{pos}:0:{betting}:{holes}", gd)
            key = keys.key(state, gd)
            place = tree_game.infoset_place(key, pos)
            letters = keys.letters(key, place.labels)
            bet = table[betting][rank]
            for i, letter in enumerate(letters):
                out[pos][place.offset + i] = bet if letter == "r" or (letter == "c" and "f" in letters) else 1 - bet
        stack.extend(LimitState.from_betting(gd, betting + letter) for letter in st.legal())
    return out
