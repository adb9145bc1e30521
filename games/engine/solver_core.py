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

    __slots__ = (
        "bad",
        "runs",
        "empty",
        "cell",
        "home",
        "breaks",
        "cellfar",
        "low",
        "loww",
        "runsw",
        "lowruns",
        "cache",
    )

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
        self.runsw = params.get("runsw", 0.0)
        self.lowruns = params.get("lowruns", 0.0)
        self.cache: dict = {}

    def col(self, col) -> float:
        bad = 0
        runs = 0
        breaks = 0
        runsw = 0.0
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
                    runsw += 14 - m
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
        if self.runsw:
            v += self.runsw * runsw / 13
        if self.lowruns and col:
            # natural runs above the lowest card of the column
            k = 0
            prev = -1
            for c in col[low_at + 1 :]:
                if not (prev >= 0 and (prev >> 2) == (c >> 2) + 1 and ((prev ^ c) & 1)):
                    k += 1
                prev = c
            v += self.lowruns * k
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


def path_cost(path, cost_found):
    return sum(cost_found if m[1] == FOUND else 1 for m, _a, _s in path)


# --------------------------------------------------------------------------------------------
# Par mode: positions with a known line to the win, and splicing lines together


class Known:
    """Positions with a known line to the win (from every line found so far): key -> (cost to the
    win, line, index in the line). ``add`` records every position of a line; a search that reaches
    one of them from the root at cost g has a line of cost g + (cost to the win)."""

    def __init__(self, cost_found):
        self.cost_found = cost_found
        self.map: dict = {}

    def add(self, root, path) -> None:
        cf = self.cost_found
        states = [root] + [st for _m, _a, st in path]
        rem = 0
        m = self.map
        for j in range(len(path), -1, -1):
            if j < len(path):
                rem += cf if path[j][0][1] == FOUND else 1
            st = states[j]
            k = key_of(st[0], st[1])
            old = m.get(k)
            if old is None or rem < old[0]:
                m[k] = (rem, path, j, st)

    def get(self, key):
        return self.map.get(key)

    def suffix(self, state, key):
        """The known line from ``state`` (whose key is ``key``) to the win, its columns renumbered
        to ``state``'s order."""
        _rem, path, j, ref = self.map[key]
        return renumber(state, ref, path[j:])


def renumber(state, ref, suffix):
    """The moves of ``suffix`` (a line from ``ref``) replayed from ``state``, which is the same
    position as ``ref`` up to the order of the columns."""
    if state[0] == ref[0]:
        return list(suffix)
    where = {col: i for i, col in enumerate(state[0]) if col}
    empties = [i for i, col in enumerate(state[0]) if not col]
    perm = []
    for col in ref[0]:
        perm.append(where[col] if col else empties.pop(0))
    out = []
    st = state
    for move, _auto, _s in suffix:
        src, dst, n, card = move
        m = (perm[src] if src < 8 else src, perm[dst] if dst < 8 else dst, n, card)
        st, auto = play(st, m)
        out.append((m, auto, st))
    return out


def beam_known(search, width, known, bound, deadline=None, clock=time.perf_counter, max_levels=400):
    """Beam search by levels of cost (keeps the ``width`` best positions of each level, by h) that
    also ends lines on the ``known`` positions: returns (path, cost) of the best line of cost below
    ``bound`` found, or (None, bound). It stops at the level where no line can beat the best."""
    root = search.root
    cf = search.cost_found
    heur = search.heur
    kmap = known.map
    seen = {key_of(root[0], root[1])}
    level = [(0.0, heur.colsum(root[0]), root, None)]
    first = True
    expanded = 0
    best = bound
    best_hit = None  # (cnode, key) or (cnode, None) for a win
    for g in range(max_levels):
        if g + 1 >= best and cf:
            break
        if g >= best:
            break
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
                fm = move[1] == FOUND
                c = g if (cf == 0 and fm) else g + 1
                cnode = (node, move, auto, child, c)
                if found[0] + found[1] + found[2] + found[3] == 52:
                    if c < best:
                        best, best_hit = c, (cnode, None)
                    continue
                kn = kmap.get(k)
                if kn is not None and c + kn[0] < best:
                    best, best_hit = c + kn[0], (cnode, k)
                if cf == 0 and fm:
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
            chosen = cand.items()
        else:
            chosen = heapq.nsmallest(width, cand.items(), key=lambda kv: kv[1])
        level = []
        for k, b in chosen:
            seen.add(k)
            level.append((b[0], b[2], b[3], b[4]))
    search.states = expanded
    if best_hit is None:
        return None, bound
    cnode, k = best_hit
    path = Search.path(cnode)
    if k is not None:
        path += known.suffix(cnode[3], k)
    return path, best


def shorten_known(root, path, known, depth=2, deadline=None, clock=time.perf_counter):
    """Replace stretches of ``path`` by shorter ones: from each of its positions, a breadth-first
    search of ``depth`` + 1 moves for a later position of the path or any position with a known
    shorter line to the win (``known``); repeated until nothing improves. Returns the path."""
    cf = known.cost_found
    kmap = known.map
    path = list(path)
    known.add(root, path)
    start = 0
    while True:
        states = [root] + [st for _m, _a, st in path]
        pre = [0]
        for m, _a, _s in path:
            pre.append(pre[-1] + (cf if m[1] == FOUND else 1))
        total = pre[-1]
        improved = False
        for i in range(start, len(states) - 1):
            if deadline and clock() > deadline:
                return path
            rem_i = total - pre[i]
            best = None  # (new remaining cost, node, key or None)
            frontier = [(states[i], None)]
            seen = {key_of(states[i][0], states[i][1])}
            cost = 0
            while frontier and cost <= depth:
                nxt = []
                k = 0
                while k < len(frontier):
                    st, node = frontier[k]
                    k += 1
                    for move, child, auto in children(st, i == 0 and node is None):
                        ck = (tuple(sorted(child[0])), child[1])
                        if ck in seen:
                            continue
                        seen.add(ck)
                        c = cf if move[1] == FOUND else 1
                        ncost = cost + c
                        cnode = (node, move, auto, child, ncost)
                        if sum(child[2]) == 52:
                            if ncost < rem_i and (best is None or ncost < best[0]):
                                best = (ncost, cnode, None)
                            continue
                        kn = kmap.get(ck)
                        if (
                            kn is not None
                            and ncost + kn[0] < rem_i
                            and (best is None or ncost + kn[0] < best[0])
                        ):
                            best = (ncost + kn[0], cnode, ck)
                        if c == 0:
                            frontier.append((child, cnode))
                        else:
                            nxt.append((child, cnode))
                frontier = nxt
                cost += 1
            if best is not None:
                _new, cnode, ck = best
                seg = Search.path(cnode)
                tail = known.suffix(cnode[3], ck) if ck is not None else []
                path = path[:i] + seg + tail
                known.add(root, path)
                start = i
                improved = True
                break
        if not improved:
            return path


def lazy_child(state, i, a, j, b, cells):
    """The position of a lazy candidate of ``_expand_lazy`` (not one it built): ``state`` with column
    ``i`` replaced by ``a``, column ``j`` by ``b`` (-1: no column) and the free cells ``cells``."""
    cols = list(state[0])
    if i >= 0:
        cols[i] = a
    if j >= 0:
        cols[j] = b
    return (tuple(cols), cells, state[2])


def _expand_lazy(heur, state, colsum, pidx, out, seq):
    """Par mode's beam: the children of ``state`` with their h, the state built only for the moves
    that start autoplay (``(h, seq, pidx, move, -2, child, auto, 0, 0)``); the others as
    ``(h, seq, pidx, move, i, new column i, j, new column j, new cells)`` (i or j -1: a free cell),
    built only if the beam keeps them. Returns the next ``seq``."""
    cache = heur.cache
    colv = heur.col
    wcell = heur.cell
    whome = heur.home
    wfar = heur.cellfar
    cols, cells, found = state
    pv = [cache[c] for c in cols]
    ncell = len(cells)
    free = 4 - ncell
    home = (52 - found[0] - found[1] - found[2] - found[3]) * whome
    far = 0
    for c in cells:
        if (c >> 2) > found[c & 3] + 2:
            far += 1
    base = ncell * wcell + home + far * wfar
    empties = [i for i in range(8) if not cols[i]]
    nempty = len(empties)
    first_empty = empties[0] if empties else -1
    maxmove = (free + 1) << nempty
    maxmove_empty = (free + 1) << (nempty - 1) if nempty else 0
    tops = [col[-1] if col else -1 for col in cols]
    safe = set()
    for s_ in range(4):
        r = found[s_] + 1
        if r <= 13 and (r <= 2 or (found[s_ ^ 1] >= r - 1 and found[s_ ^ 3] >= r - 1)):
            safe.add(r << 2 | s_)
    append = out.append
    rest_of = heur.rest

    def eager(ncols, ncells, nfound, move):
        auto: list = []
        ncols = list(ncols)
        ncells = list(ncells)
        nfound = list(nfound)
        autoplay(ncols, ncells, nfound, auto)
        child = (tuple(ncols), tuple(sorted(ncells)), tuple(nfound))
        cs = 0.0
        for col in child[0]:
            v = cache.get(col)
            if v is None:
                v = colv(col)
            cs += v
        h = cs + rest_of(child[1], child[2]) if sum(nfound) < 52 else -1e9
        return (h, seq, pidx, move, -2, child, auto, cs, 0)

    # from free cells
    for c in cells:
        r = c >> 2
        s = c & 3
        rest = tuple(x for x in cells if x != c)
        if found[s] == r - 1:
            nf = list(found)
            nf[s] = r
            append(eager(cols, rest, nf, (CELL, FOUND, 1, c)))
            seq += 1
        hb = base - wcell - (wfar if r > found[s] + 2 else 0.0)
        for j in range(8):
            d = tops[j]
            if d >= 0 and (d >> 2) == r + 1 and ((d ^ c) & 1):
                nd = cols[j] + (c,)
                v = cache.get(nd)
                if v is None:
                    v = colv(nd)
                append((colsum - pv[j] + v + hb, seq, pidx, (CELL, j, 1, c), -1, None, j, nd, rest))
                seq += 1
        if first_empty >= 0:
            nd = (c,)
            v = cache.get(nd)
            if v is None:
                v = colv(nd)
            append(
                (
                    colsum - pv[first_empty] + v + hb,
                    seq,
                    pidx,
                    (CELL, first_empty, 1, c),
                    -1,
                    None,
                    first_empty,
                    nd,
                    rest,
                )
            )
            seq += 1

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
            append(eager(nc, cells, nf, (i, FOUND, 1, t)))
            seq += 1
        L = 1
        c = t
        while L < clen:
            d = col[-1 - L]
            if (d >> 2) == (c >> 2) + 1 and ((d ^ c) & 1):
                L += 1
                c = d
            else:
                break
        hi = colsum - pv[i] + base
        for j in range(8):
            d = tops[j]
            if d < 0 or j == i:
                continue
            n = (d >> 2) - r
            if 1 <= n <= L and n <= maxmove and ((d ^ t ^ (n - 1)) & 1):
                left = col[:-n]
                nd = cols[j] + col[-n:]
                move = (i, j, n, col[-n])
                if left and left[-1] in safe:
                    nc = list(cols)
                    nc[i] = left
                    nc[j] = nd
                    append(eager(nc, cells, found, move))
                else:
                    v1 = cache.get(left)
                    if v1 is None:
                        v1 = colv(left)
                    v2 = cache.get(nd)
                    if v2 is None:
                        v2 = colv(nd)
                    append((hi - pv[j] + v1 + v2, seq, pidx, move, i, left, j, nd, cells))
                seq += 1
        if first_empty >= 0:
            lim = min(L, maxmove_empty, clen - 1)
            pe = pv[first_empty]
            for n in range(1, lim + 1):
                left = col[:-n]
                nd = col[-n:]
                move = (i, first_empty, n, col[-n])
                if left[-1] in safe:
                    nc = list(cols)
                    nc[i] = left
                    nc[first_empty] = nd
                    append(eager(nc, cells, found, move))
                else:
                    v1 = cache.get(left)
                    if v1 is None:
                        v1 = colv(left)
                    v2 = cache.get(nd)
                    if v2 is None:
                        v2 = colv(nd)
                    append((hi - pe + v1 + v2, seq, pidx, move, i, left, first_empty, nd, cells))
                seq += 1
        if free:
            ncells = tuple(sorted(cells + (t,)))
            move = (i, CELL, 1, t)
            if rest1 and rest1[-1] in safe:
                nc = list(cols)
                nc[i] = rest1
                append(eager(nc, ncells, found, move))
            else:
                v1 = cache.get(rest1)
                if v1 is None:
                    v1 = colv(rest1)
                h = hi + v1 + wcell + (wfar if r > found[s] + 2 else 0.0)
                append((h, seq, pidx, move, i, rest1, -1, None, ncells))
            seq += 1
    return seq


#: Width of the rest of a beam search that ran out of time (a few hundredths of a second more).
FINISH_WIDTH = 8


def beam_fast(search, width, known, bound, deadline=None, clock=time.perf_counter, max_levels=400):
    """``beam_known`` for lines where every move costs 1 (safe autoplay), faster: the children of a
    level are scored without being built, and only the ``width`` best (after duplicates) are. At
    the ``deadline`` the beam narrows to ``FINISH_WIDTH`` and goes on to a line."""
    root = search.root
    heur = search.heur
    kmap = known.map
    seen = {key_of(root[0], root[1])}
    best = bound
    best_hit = None
    expanded = 1
    # level 1: the root's children, in full (the root may hold cards autoplay would take)
    cs0 = heur.colsum(root[0])
    cand = []
    seq = 0
    for h, cs, move, child, auto in heur.scored_children(root, cs0, True):
        cand.append((h, seq, 0, move, -2, child, auto, cs, 0))
        seq += 1
    parents = [(root, None, cs0)]
    g = 0
    while cand:
        g += 1  # cost of the candidates
        if g > max_levels or g >= best:
            break
        cand.sort()
        level = []
        lkeys = set()
        for h, _s, pidx, move, i, a, j, b, cl in cand:
            pstate, pnode, pcs = parents[pidx]
            if i == -2:
                child, auto, cs = a, j, b
            else:
                child = lazy_child(pstate, i, a, j, b, cl)
                auto = ()
                cs = h - heur.rest(cl, pstate[2])
            cols, cells, found = child
            k = (tuple(sorted(cols)), cells)
            if k in seen or k in lkeys:
                continue
            lkeys.add(k)
            cnode = (pnode, move, auto, child, g)
            if found[0] + found[1] + found[2] + found[3] == 52:
                best, best_hit = g, (cnode, None)
                break
            kn = kmap.get(k)
            if kn is not None and g + kn[0] < best:
                best, best_hit = g + kn[0], (cnode, k)
            level.append((child, cnode, cs))
            if len(level) >= width:
                break
        if best == g or g + 1 >= best:
            break
        if deadline and clock() > deadline:
            # out of time: finish the line narrowly rather than lose the whole beam
            deadline = None
            width = min(width, FINISH_WIDTH)
        seen |= lkeys
        parents = level
        cand = []
        seq = 0
        for pidx, (state, _node, cs) in enumerate(level):
            seq = _expand_lazy(heur, state, cs, pidx, cand, seq)
        expanded += len(level)
    search.states = expanded
    if best_hit is None:
        return None, bound
    cnode, k = best_hit
    path = Search.path(cnode)
    if k is not None:
        path += known.suffix(cnode[3], k)
    return path, best
