"""Search core of the FreeCell solver (internal: the public API is in solver.py).

Everything here works on a compact representation, independent of the engine's classes:

- a card is an int ``rank << 2 | suit`` with rank 1..13 and the suits in the order C D S H, so
  that ``card & 1`` is the colour (1 = red) and the opposite-colour suits of ``s`` are ``s ^ 1`` and
  ``s ^ 3``;
- a position is ``(cols, cells, found)``: ``cols`` a tuple of 8 tuples of cards (bottom card
  first), ``cells`` a sorted tuple of the cards in the free cells (their letters do not matter to
  the search; solver.py assigns letters when it writes the line), ``found`` a tuple of the 4
  foundation ranks indexed by suit;
- a move is ``(src, dst, n, card)``: ``src`` 0-7 a column or 8 a free cell, ``dst`` 0-7 a column,
  8 a free cell or 9 the foundation, ``n`` the number of cards, ``card`` the moved card (the
  bottom card of a run).

Positions are compared by a canonical key (columns sorted, cells sorted), and after every move the
search applies the spec's safe autoplay, which never changes whether a position can be won: so a
search that runs out of positions has proved the position unsolvable. The move set (every single
card move, plus every run move) contains every single-card move, so nothing is pruned.
"""

from __future__ import annotations

import heapq
import time

SUITS = "CDSH"
RANKS = "A23456789TJQK"
CELL = 8
FOUND = 9
#: A best-first search gives up past this many stored positions (about 0.5 KB each): bounds memory.
MAX_STORED = 1_500_000


def parse_card(text: str) -> int:
    text = text.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    return (RANKS.index(text[0]) + 1) << 2 | SUITS.index(text[1])


def card_text(card: int) -> str:
    return RANKS[(card >> 2) - 1] + SUITS[card & 3]


def is_safe(card: int, found) -> bool:
    """The spec's safe autoplay rule, for a card that could go home now."""
    r = card >> 2
    s = card & 3
    return found[s] == r - 1 and (r <= 2 or (found[s ^ 1] >= r - 1 and found[s ^ 3] >= r - 1))


def autoplay(cols: list, cells: list, found: list, out: list) -> None:
    """Apply safe autoplay in place (lists); append the moves made to ``out``."""
    changed = True
    while changed:
        changed = False
        for i in range(8):
            col = cols[i]
            while col:
                c = col[-1]
                r = c >> 2
                s = c & 3
                if found[s] == r - 1 and (r <= 2 or (found[s ^ 1] >= r - 1 and found[s ^ 3] >= r - 1)):
                    found[s] = r
                    col = col[:-1]
                    out.append((i, FOUND, 1, c))
                    changed = True
                else:
                    break
            cols[i] = col
        for c in list(cells):
            r = c >> 2
            s = c & 3
            if found[s] == r - 1 and (r <= 2 or (found[s ^ 1] >= r - 1 and found[s ^ 3] >= r - 1)):
                found[s] = r
                cells.remove(c)
                out.append((CELL, FOUND, 1, c))
                changed = True


def stacks(lower: int, upper: int) -> bool:
    """Can ``upper`` rest on ``lower`` in a column?"""
    return (lower >> 2) == (upper >> 2) + 1 and ((lower ^ upper) & 1) == 1


def run_length(col) -> int:
    n = len(col)
    if not n:
        return 0
    k = 1
    c = col[-1]
    while k < n:
        d = col[-1 - k]
        if (d >> 2) == (c >> 2) + 1 and ((d ^ c) & 1):
            k += 1
            c = d
        else:
            break
    return k


def key_of(cols, cells):
    return (tuple(sorted(cols)), cells)


def apply_move(state, move):
    """Apply one move (no autoplay); return the new state. No legality check beyond the basics."""
    cols, cells, found = state
    src, dst, n, card = move
    cols = list(cols)
    cells = list(cells)
    found = list(found)
    if src == CELL:
        cells.remove(card)
        moved = (card,)
    else:
        col = cols[src]
        moved = col[-n:]
        assert moved[0] == card, (move, col)
        cols[src] = col[:-n]
    if dst == FOUND:
        assert n == 1 and found[card & 3] == (card >> 2) - 1
        found[card & 3] += 1
    elif dst == CELL:
        assert n == 1 and len(cells) < 4
        cells.append(card)
        cells.sort()
    else:
        cols[dst] = cols[dst] + moved
    return tuple(cols), tuple(cells), tuple(found)


def play(state, move):
    """Apply a move then safe autoplay: (new_state, autoplay_moves)."""
    cols, cells, found = apply_move(state, move)
    cols = list(cols)
    cells = list(cells)
    found = list(found)
    out: list = []
    autoplay(cols, cells, found, out)
    return (tuple(cols), tuple(sorted(cells)), tuple(found)), out


def is_won(state) -> bool:
    return sum(state[2]) == 52


def legal_moves(state):
    """Every move of the search's move set (used by tests and by the slow paths)."""
    return [m for m, _s, _a in children(state, True)]


# --------------------------------------------------------------------------------------------
# Move generation


def _closed(ncols, ncells, nfound, move):
    """A child whose move may start safe autoplay: apply it; return (move, state, autoplay_moves)."""
    auto: list = []
    ncols = list(ncols)
    ncells = list(ncells)
    nfound = list(nfound)
    autoplay(ncols, ncells, nfound, auto)
    return move, (tuple(ncols), tuple(sorted(ncells)), tuple(nfound)), auto


def children(state, full_autoplay):
    """Every move of the move set: a list of (move, child_state, autoplay_moves).

    ``full_autoplay``: the position may hold cards that safe autoplay would take (only the root of
    a search); otherwise only the card a move uncovers, or a foundation move, can start autoplay.
    """
    cols, cells, found = state
    free = 4 - len(cells)
    empties = [i for i in range(8) if not cols[i]]
    nempty = len(empties)
    first_empty = empties[0] if empties else -1
    maxmove = (free + 1) << nempty
    maxmove_empty = (free + 1) << (nempty - 1) if nempty else 0
    out = []
    append = out.append
    tops = [col[-1] if col else -1 for col in cols]
    # the cards safe autoplay would take if they were exposed (found does not change unless a card
    # goes home, and then the child is closed in full)
    safe = set()
    for s_ in range(4):
        r = found[s_] + 1
        if r <= 13 and (r <= 2 or (found[s_ ^ 1] >= r - 1 and found[s_ ^ 3] >= r - 1)):
            safe.add(r << 2 | s_)
    empty_auto = ()

    # from free cells
    for c in cells:
        r = c >> 2
        s = c & 3
        rest = tuple(x for x in cells if x != c)
        if found[s] == r - 1:
            nf = list(found)
            nf[s] = r
            append(_closed(cols, rest, nf, (CELL, FOUND, 1, c)))
        for j in range(8):
            d = tops[j]
            if d >= 0 and (d >> 2) == r + 1 and ((d ^ c) & 1):
                nc = list(cols)
                nc[j] = cols[j] + (c,)
                if full_autoplay:
                    append(_closed(nc, rest, found, (CELL, j, 1, c)))
                else:
                    append(((CELL, j, 1, c), (tuple(nc), rest, found), empty_auto))
        if first_empty >= 0:
            nc = list(cols)
            nc[first_empty] = (c,)
            if full_autoplay:
                append(_closed(nc, rest, found, (CELL, first_empty, 1, c)))
            else:
                append(((CELL, first_empty, 1, c), (tuple(nc), rest, found), empty_auto))

    # from columns
    for i in range(8):
        col = cols[i]
        if not col:
            continue
        clen = len(col)
        t = col[-1]
        r = t >> 2
        s = t & 3
        rest1 = col[:-1]
        if found[s] == r - 1:
            nc = list(cols)
            nc[i] = rest1
            nf = list(found)
            nf[s] = r
            append(_closed(nc, cells, nf, (i, FOUND, 1, t)))
        # run length
        L = 1
        c = t
        while L < clen:
            d = col[-1 - L]
            if (d >> 2) == (c >> 2) + 1 and ((d ^ c) & 1):
                L += 1
                c = d
            else:
                break
        for j in range(8):
            d = tops[j]
            if d < 0 or j == i:
                continue
            n = (d >> 2) - r
            if 1 <= n <= L and n <= maxmove and ((d ^ t ^ (n - 1)) & 1):
                nc = list(cols)
                left = nc[i] = col[:-n]
                nc[j] = cols[j] + col[-n:]
                move = (i, j, n, col[-n])
                if full_autoplay or (left and left[-1] in safe):
                    append(_closed(nc, cells, found, move))
                else:
                    append((move, (tuple(nc), cells, found), empty_auto))
        if first_empty >= 0:
            lim = min(L, maxmove_empty, clen - 1)
            for n in range(1, lim + 1):
                nc = list(cols)
                left = nc[i] = col[:-n]
                nc[first_empty] = col[-n:]
                move = (i, first_empty, n, col[-n])
                if full_autoplay or left[-1] in safe:
                    append(_closed(nc, cells, found, move))
                else:
                    append((move, (tuple(nc), cells, found), empty_auto))
        if free:
            nc = list(cols)
            nc[i] = rest1
            ncells = tuple(sorted(cells + (t,)))
            move = (i, CELL, 1, t)
            if full_autoplay or (rest1 and rest1[-1] in safe):
                append(_closed(nc, ncells, found, move))
            else:
                append((move, (tuple(nc), ncells, found), empty_auto))
    return out


# --------------------------------------------------------------------------------------------
# Heuristic and best-first search


class Heuristic:
    """Estimate of the moves left: a weighted sum of column terms (cached by column) and of terms
    of the free cells and foundations.

    Column terms: ``bad`` cards (resting above a lower-ranked card of their column: each must move
    before that card can go home), ``runs`` (natural runs among those: one move each at best), and
    ``empty`` for an empty column (a negative cost: room to move).
    """

    __slots__ = ("bad", "runs", "empty", "cell", "home", "breaks", "cellfar", "low", "loww", "cache")

    def __init__(self, params: dict):
        self.bad = params.get("bad", 0.0)
        self.runs = params.get("runs", 1.0)
        self.empty = params.get("empty", 0.0)
        self.cell = params.get("cell", 0.5)
        self.home = params.get("home", 0.0)
        self.breaks = params.get("breaks", 0.0)
        self.cellfar = params.get("cellfar", 0.0)
        self.low = params.get("lowdepth", 0.0)
        self.loww = params.get("lowdw", 0.0)
        self.cache: dict = {}

    def col(self, col) -> float:
        bad = 0
        runs = 0
        breaks = 0
        m = 99
        prev = -1
        low_at = 0
        for i, c in enumerate(col):
            r = c >> 2
            natural = prev >= 0 and (prev >> 2) == r + 1 and ((prev ^ c) & 1)
            if prev >= 0 and not natural:
                breaks += 1
            if r > m:
                bad += 1
                if not natural:
                    runs += 1
            else:
                if r < m:
                    low_at = i
                m = r
            prev = c
        v = bad * self.bad + runs * self.runs + breaks * self.breaks - (self.empty if not col else 0.0)
        if col and (self.low or self.loww):
            # cards above the lowest card of the column, the more so the lower that card
            above = len(col) - 1 - low_at
            v += above * (self.low + self.loww * (14 - m) / 13)
        self.cache[col] = v
        return v

    def colsum(self, cols) -> float:
        cache = self.cache
        total = 0.0
        for col in cols:
            v = cache.get(col)
            if v is None:
                v = self.col(col)
            total += v
        return total

    def rest(self, cells, found) -> float:
        v = len(cells) * self.cell + (52 - found[0] - found[1] - found[2] - found[3]) * self.home
        if self.cellfar:
            for c in cells:
                if (c >> 2) > found[c & 3] + 2:
                    v += self.cellfar
        return v

    def scored_children(self, state, colsum, first):
        """children() with (h, colsum) of each child: [(h, colsum, move, child, auto)]."""
        cache = self.cache
        pcols = state[0]
        wcell = self.cell
        whome = self.home
        cellfar = self.cellfar
        out = []
        for move, child, auto in children(state, first):
            ccols, ccells, cfound = child
            cs = colsum
            for a, b in zip(ccols, pcols, strict=False):
                if a is not b:
                    v = cache.get(a)
                    if v is None:
                        v = self.col(a)
                    cs += v - cache[b]
            h = cs + len(ccells) * wcell + (52 - cfound[0] - cfound[1] - cfound[2] - cfound[3]) * whome
            if cellfar:
                for c in ccells:
                    if (c >> 2) > cfound[c & 3] + 2:
                        h += cellfar
            out.append((h, cs, move, child, auto))
        return out


class Search:
    """Weighted best-first search (f = g + weight * h) over canonical positions.

    With ``max_states``/``deadline`` unset it runs until it finds a win or has searched every position
    reachable (``exhausted``): a proof that there is no win, since nothing is pruned.
    """

    def __init__(self, root, cost_found=1, weight=3.0, params=None):
        self.root = root
        self.cost_found = cost_found
        self.weight = weight
        self.heur = Heuristic(params or {})
        self.states = 0
        self.exhausted = False
        self.too_big = False

    def h(self, state):
        return self.heur.colsum(state[0]) + self.heur.rest(state[1], state[2])

    def run(self, max_states=None, deadline=None, clock=time.perf_counter):
        """Search on until a win (returns its path), ``max_states`` expansions in all (returns None,
        and a later call goes on from there), the ``deadline`` or the end of the search space
        (returns None with ``exhausted`` set)."""
        w = self.weight
        cf = self.cost_found
        heur = self.heur
        if not hasattr(self, "heap"):
            root = self.root
            self.seen = {key_of(root[0], root[1])}
            self.heap = [(0.0, 0, root, None, heur.colsum(root[0]))]
            self.seq = 1
        seen = self.seen
        heap = self.heap
        seq = self.seq
        expanded = self.states
        push = heapq.heappush
        pop = heapq.heappop
        try:
            while heap:
                if max_states and expanded >= max_states:
                    return None
                if len(seen) > MAX_STORED:
                    self.too_big = True
                    return None
                if deadline and not expanded & 255 and clock() > deadline:
                    return None
                _f, _s, state, node, colsum = pop(heap)
                g = node[4] if node else 0
                expanded += 1
                for h, cs, move, child, auto in heur.scored_children(state, colsum, node is None):
                    cols, cells, found = child
                    k = (tuple(sorted(cols)), cells)
                    if k in seen:
                        continue
                    seen.add(k)
                    ng = g + (cf if move[1] == FOUND else 1)
                    cnode = (node, move, auto, child, ng)
                    if found[0] + found[1] + found[2] + found[3] == 52:
                        return self.path(cnode)
                    push(heap, (ng + w * h, seq, child, cnode, cs))
                    seq += 1
            self.exhausted = True
            return None
        finally:
            self.states = expanded
            self.seq = seq

    @staticmethod
    def path(node):
        out = []
        while node:
            out.append((node[1], node[2], node[3]))
            node = node[0]
        out.reverse()
        return out


def beam(search, width, max_levels=400, deadline=None, clock=time.perf_counter):
    """Beam search by levels of g (player moves): keeps the ``width`` best positions (by h) of each
    level; returns a path or None."""
    root = search.root
    cf = search.cost_found
    heur = search.heur
    seen = {key_of(root[0], root[1])}
    level = [(0.0, heur.colsum(root[0]), root, None)]
    first = True
    expanded = 0
    for _g in range(max_levels):
        cand = {}
        i = 0
        while i < len(level):
            _hv, colsum, state, node = level[i]
            i += 1
            expanded += 1
            for h, cs, move, child, auto in heur.scored_children(state, colsum, first):
                cols, cells, found = child
                k = (tuple(sorted(cols)), cells)
                if k in seen or k in cand:
                    continue
                cnode = (node, move, auto, child, 0)
                if found[0] + found[1] + found[2] + found[3] == 52:
                    search.states = expanded
                    return Search.path(cnode)
                if cf == 0 and move[1] == FOUND:
                    seen.add(k)
                    level.append((h, cs, child, cnode))
                else:
                    cand[k] = (h, len(cand), cs, child, cnode)
            first = False
        if not cand:
            break
        if deadline and clock() > deadline:
            break
        if len(cand) <= width:
            best = cand.items()
        else:
            best = heapq.nsmallest(width, cand.items(), key=lambda kv: kv[1])
        level = []
        for k, b in best:
            seen.add(k)
            level.append((b[0], b[2], b[3], b[4]))
    search.states = expanded
    return None


def path_cost(path, cost_found):
    return sum(cost_found if m[1] == FOUND else 1 for m, _a, _s in path)


def shorten(root, path, cost_found, depth=2, deadline=None, clock=time.perf_counter):
    """Replace stretches of a path by shorter ones found by a small search of ``depth`` moves."""
    path = list(path)
    first_full = True
    improved = True
    while improved:
        improved = False
        states = [root] + [st for _m, _a, st in path]
        keys = {}
        for j, st in enumerate(states):
            keys[key_of(st[0], st[1])] = j
        # cost prefix sums
        pre = [0]
        for m, _a, _s in path:
            pre.append(pre[-1] + (cost_found if m[1] == FOUND else 1))
        i = 0
        while i < len(states) - 1:
            if deadline and clock() > deadline:
                return path
            # 0-1 BFS up to cost `depth` from states[i]
            best = None  # (gain, j, segment)
            frontier = [(states[i], ())]
            seen = {key_of(states[i][0], states[i][1])}
            cost = 0
            while frontier and cost <= depth:
                nxt = []
                k = 0
                while k < len(frontier):
                    st, seg = frontier[k]
                    k += 1
                    for move, child, auto in children(st, first_full and i == 0):
                        ck = (tuple(sorted(child[0])), child[1])
                        if ck in seen:
                            continue
                        seen.add(ck)
                        c = cost_found if move[1] == FOUND else 1
                        nseg = seg + ((move, auto, child),)
                        j = keys.get(ck)
                        ncost = cost + c
                        if j is not None and j > i:
                            gain = (pre[j] - pre[i]) - ncost
                            if gain > 0 and (best is None or gain > best[0]):
                                best = (gain, j, nseg)
                        if sum(child[2]) == 52:
                            gain = (pre[-1] - pre[i]) - ncost
                            if gain > 0 and (best is None or gain > best[0]):
                                best = (gain, len(states) - 1, nseg)
                        if c == 0:
                            frontier.append((child, nseg))
                        else:
                            nxt.append((child, nseg))
                frontier = nxt
                cost += 1
            if best is not None:
                _gain, j, seg = best
                path = path[:i] + list(seg) + path[j:]
                improved = True
                break
            i += 1
    return path
