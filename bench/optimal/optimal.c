/* Exact A* search for FreeCell under the spec's counting: the measuring instrument behind the
   "how far is par from optimal" figures (bench/optimal.py), not part of the service, whose solver
   is pure Python (games/engine/solver.py).

   Rules as in docs/engine-api.md; after every player action, safe autoplay as the API's overview defines it (free).
   Every action costs 1, a run moved at once included. The move set is the one of
   games/engine/solver_core.children(): every single-card move and every legal run move, so it
   reaches every position the rules allow, and positions are compared with their columns and
   cells sorted.

   The bound h (hval below) never overestimates the actions left (docs/solver.md, "The proven
   optimum"), so the first win A* takes off its queue is optimal, and when the search stops early
   the least f = g + h on the queue is a proven lower bound on the optimum.

   Input (stdin): 8 lines of column cards bottom first, then 1 line of free-cell cards; a card is
   an int rank << 2 | suit with the suits in the order C D S H (solver_core's cards).
   Usage: optimal [MAX_NODES [SECONDS [UPPER]]]: at most MAX_NODES positions (default 2,000,000;
   about 70 bytes each), SECONDS of CPU, and positions with f >= UPPER are not searched.
   Output: "optimal N ..." then one move a line ("src dst n card": 0-7 columns, 8 a free cell,
   9 home), exit 0; or "bound B ..." (B <= the optimum), exit 2.
   `optimal --h`: reads positions (9 lines each) until the end of input and prints h of each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

#define KEYLEN 64
typedef struct { uint8_t col[8][32]; uint8_t len[8]; uint8_t cell[4]; uint8_t ncell; uint8_t found[4]; } State;
typedef struct { uint8_t src, dst, n, card; } Move;

#define RANK(c) ((c) >> 2)
#define SUIT(c) ((c) & 3)
#define RED(c) ((c) & 1)

static int is_safe(int c, const uint8_t *f) {
    int r = RANK(c), s = SUIT(c);
    return f[s] == r - 1 && (r <= 2 || (f[s ^ 1] >= r - 1 && f[s ^ 3] >= r - 1));
}

static void autoplay(State *st) {
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int i = 0; i < 8; i++) {
            while (st->len[i]) {
                int c = st->col[i][st->len[i] - 1];
                if (is_safe(c, st->found)) { st->found[SUIT(c)]++; st->len[i]--; changed = 1; }
                else break;
            }
        }
        for (int k = 0; k < st->ncell; k++) {
            int c = st->cell[k];
            if (is_safe(c, st->found)) {
                st->found[SUIT(c)]++;
                st->cell[k] = st->cell[--st->ncell];
                k--; changed = 1;
            }
        }
    }
}

static int colcmp(const State *st, int a, int b) {
    int la = st->len[a], lb = st->len[b];
    int m = la < lb ? la : lb;
    int c = memcmp(st->col[a], st->col[b], m);
    if (c) return c;
    return la - lb;
}

static void make_key(const State *st, uint8_t *key) {
    int idx[8];
    for (int i = 0; i < 8; i++) idx[i] = i;
    for (int i = 1; i < 8; i++) { /* insertion sort */
        int v = idx[i], j = i - 1;
        while (j >= 0 && colcmp(st, idx[j], v) > 0) { idx[j + 1] = idx[j]; j--; }
        idx[j + 1] = v;
    }
    int p = 0;
    memset(key, 0, KEYLEN);
    for (int i = 0; i < 8; i++) {
        int c = idx[i];
        memcpy(key + p, st->col[c], st->len[c]);
        p += st->len[c];
        key[p++] = 0;
    }
    uint8_t cs[4]; int n = st->ncell;
    memcpy(cs, st->cell, n);
    for (int i = 1; i < n; i++) { uint8_t v = cs[i]; int j = i - 1; while (j >= 0 && cs[j] > v) { cs[j + 1] = cs[j]; j--; } cs[j + 1] = v; }
    memcpy(key + p, cs, n);
}

static void decode_key(const uint8_t *key, State *st) {
    int p = 0;
    int cnt[4] = {0, 0, 0, 0};
    for (int i = 0; i < 8; i++) {
        int l = 0;
        while (key[p]) { st->col[i][l++] = key[p]; cnt[SUIT(key[p])]++; p++; }
        st->len[i] = l; p++;
    }
    st->ncell = 0;
    while (p < KEYLEN && key[p]) { st->cell[st->ncell++] = key[p]; cnt[SUIT(key[p])]++; p++; }
    for (int s = 0; s < 4; s++) st->found[s] = 13 - cnt[s];
}

/* ---- admissible bound ---- */
/* Must card a be home before card c can go home by safe autoplay? */
static inline int needed_before(int a, int c) {
    int r = RANK(c);
    if (SUIT(a) == SUIT(c)) return RANK(a) < r;
    return r >= 3 && RED(a) != RED(c) && RANK(a) < r;
}

/* REQ[c]: the cards (bit card - 4) that must be home before card c can go home by safe autoplay */
static uint64_t REQ[56];
static void init_req(void) {
    for (int c = 4; c < 56; c++) {
        REQ[c] = 0;
        for (int a = 4; a < 56; a++) if (needed_before(a, c)) REQ[c] |= 1ULL << (a - 4);
    }
}

static int hval(const State *st) {
    /* A lower bound on the actions left (an action: a player's move of one card or one run).
       1. A card must act (be moved by an action) when a card below it in its column must be home
          before it could go home by safe autoplay: one action moves cards of at most one natural
          run of a column as it stands, so the runs ("units") holding such a card each cost one
          action of their own: |M|.
       2. Among the other cards (and the free-cell cards, one unit each): a card that does not act
          goes home by autoplay from where it is, so a -> b when a must be gone before b can go
          home that way (a card below a is needed before b, or a itself is). A cycle of -> means one
          of its cards acts. Cycles with no unit in common each cost an action of their own:
          greedily, disjoint 2-cycles (a matching of units), then 3-cycles. */
    int h = 0;
    int n = 0, nunit = 0;
    uint8_t unit[64], card[64]; uint64_t low[64]; /* low: the card and the cards below it */
    for (int i = 0; i < 8; i++) {
        uint64_t below = 0;
        int bad = 0, start = n;
        for (int k = 0; k < st->len[i]; k++) {
            int c = st->col[i][k], r = RANK(c);
            if (k > 0) {
                int d = st->col[i][k - 1];
                if (!(RANK(d) == r + 1 && (RED(d) != RED(c)))) {
                    if (bad) { h++; n = start; } else if (n > start) nunit++;
                    bad = 0; start = n;
                }
            }
            if (below & REQ[c]) bad = 1;
            below |= 1ULL << (c - 4);
            if (!bad) { unit[n] = nunit; card[n] = c; low[n] = below; n++; }
        }
        if (bad) { h++; n = start; } else if (n > start) nunit++;
    }
    for (int k = 0; k < st->ncell; k++) {
        unit[n] = nunit++; card[n] = st->cell[k]; low[n] = 1ULL << (st->cell[k] - 4); n++;
    }
    if (nunit < 2) return h;
    uint64_t out[64], in[64], umask[64];
    memset(in, 0, sizeof in);
    memset(umask, 0, sizeof umask);
    for (int a = 0; a < n; a++) umask[unit[a]] |= 1ULL << a;
    for (int a = 0; a < n; a++) {
        uint64_t o = 0;
        for (int b = 0; b < n; b++) {
            if (unit[a] == unit[b]) continue;
            if (low[a] & REQ[card[b]]) o |= 1ULL << b;
        }
        out[a] = o;
        for (uint64_t t = o; t; t &= t - 1) in[__builtin_ctzll(t)] |= 1ULL << a;
    }
    /* units joined by a 2-cycle */
    uint64_t adj[64]; memset(adj, 0, sizeof adj);
    for (int a = 0; a < n; a++) {
        for (uint64_t t = out[a] & in[a]; t; t &= t - 1) adj[unit[a]] |= 1ULL << unit[__builtin_ctzll(t)];
    }
    uint64_t alive = (nunit == 64) ? ~0ULL : ((1ULL << nunit) - 1);
    for (;;) { /* greedy matching: a unit of least degree with its neighbour of least degree */
        int best = -1, bd = 99;
        for (int v = 0; v < nunit; v++) {
            if (!((alive >> v) & 1)) continue;
            uint64_t nb = adj[v] & alive;
            if (!nb) continue;
            int d = __builtin_popcountll(nb);
            if (d < bd) { bd = d; best = v; }
        }
        if (best < 0) break;
        uint64_t nb = adj[best] & alive;
        int bw = -1, bwd = 99;
        while (nb) {
            int w = __builtin_ctzll(nb); nb &= nb - 1;
            int d = __builtin_popcountll(adj[w] & alive);
            if (d < bwd) { bwd = d; bw = w; }
        }
        alive &= ~((1ULL << best) | (1ULL << bw));
        h++;
    }
    /* then 3-cycles among the cards of the units left */
    uint64_t cards = 0;
    for (int v = 0; v < nunit; v++) if ((alive >> v) & 1) cards |= umask[v];
    for (int a = 0; a < n; a++) {
        if (!((cards >> a) & 1)) continue;
        int found = 0;
        for (uint64_t tb = out[a] & cards; tb && !found; tb &= tb - 1) {
            int b = __builtin_ctzll(tb);
            uint64_t tc = out[b] & in[a] & cards & ~umask[unit[a]] & ~umask[unit[b]];
            if (tc) {
                int c = __builtin_ctzll(tc);
                cards &= ~(umask[unit[a]] | umask[unit[b]] | umask[unit[c]]);
                h++; found = 1;
            }
        }
    }
    return h;
}

static int gen_moves(const State *st, Move *out) {
    int n = 0;
    int free = 4 - st->ncell, nempty = 0, first_empty = -1;
    for (int i = 0; i < 8; i++) if (!st->len[i]) { nempty++; if (first_empty < 0) first_empty = i; }
    int maxmove = (free + 1) << nempty;
    int maxmove_empty = nempty ? (free + 1) << (nempty - 1) : 0;
    for (int k = 0; k < st->ncell; k++) {
        int c = st->cell[k], r = RANK(c), s = SUIT(c);
        if (st->found[s] == r - 1) out[n++] = (Move){8, 9, 1, c};
        for (int j = 0; j < 8; j++) {
            if (!st->len[j]) continue;
            int d = st->col[j][st->len[j] - 1];
            if (RANK(d) == r + 1 && RED(d) != RED(c)) out[n++] = (Move){8, j, 1, c};
        }
        if (first_empty >= 0) out[n++] = (Move){8, first_empty, 1, c};
    }
    for (int i = 0; i < 8; i++) {
        int len = st->len[i];
        if (!len) continue;
        int t = st->col[i][len - 1], r = RANK(t), s = SUIT(t);
        if (st->found[s] == r - 1) out[n++] = (Move){i, 9, 1, t};
        int L = 1, c = t;
        while (L < len) {
            int d = st->col[i][len - 1 - L];
            if (RANK(d) == RANK(c) + 1 && RED(d) != RED(c)) { L++; c = d; } else break;
        }
        for (int j = 0; j < 8; j++) {
            if (j == i || !st->len[j]) continue;
            int d = st->col[j][st->len[j] - 1];
            int k = RANK(d) - r;
            if (k >= 1 && k <= L && k <= maxmove && ((d ^ t ^ (k - 1)) & 1)) out[n++] = (Move){i, j, k, st->col[i][len - k]};
        }
        if (first_empty >= 0) {
            int lim = L; if (maxmove_empty < lim) lim = maxmove_empty; if (len - 1 < lim) lim = len - 1;
            for (int k = 1; k <= lim; k++) out[n++] = (Move){i, first_empty, k, st->col[i][len - k]};
        }
        if (free) out[n++] = (Move){i, 8, 1, t};
    }
    return n;
}

static void apply(State *st, Move m) {
    uint8_t moved[32]; int n = m.n;
    if (m.src == 8) {
        for (int k = 0; k < st->ncell; k++) if (st->cell[k] == m.card) { st->cell[k] = st->cell[--st->ncell]; break; }
        moved[0] = m.card;
    } else {
        st->len[m.src] -= n;
        memcpy(moved, st->col[m.src] + st->len[m.src], n);
    }
    if (m.dst == 9) st->found[SUIT(m.card)]++;
    else if (m.dst == 8) st->cell[st->ncell++] = m.card;
    else { memcpy(st->col[m.dst] + st->len[m.dst], moved, n); st->len[m.dst] += n; }
    autoplay(st);
}

/* ---- node store ---- */
static uint8_t *keys; static uint8_t *gs; static uint8_t *hs; static uint32_t *parent; static uint8_t *closed;
static uint32_t nnodes, maxnodes;
static uint32_t *table; static uint64_t tmask;

static uint64_t hash_key(const uint8_t *k) {
    uint64_t h = 1469598103934665603ULL;
    const uint64_t *w = (const uint64_t *)k;
    for (int i = 0; i < KEYLEN / 8; i++) { h ^= w[i]; h *= 0x100000001b3ULL; h ^= h >> 29; }
    return h;
}
/* returns index; *found=1 if it existed */
static uint32_t lookup(const uint8_t *k, int *found) {
    uint64_t p = hash_key(k) & tmask;
    for (;;) {
        uint32_t v = table[p];
        if (v == 0) { *found = 0; return (uint32_t)p; }
        if (!memcmp(keys + (uint64_t)(v - 1) * KEYLEN, k, KEYLEN)) { *found = 1; return v - 1; }
        p = (p + 1) & tmask;
    }
}

/* open list: buckets by f then h (h < 64: at most 52 runs and 4 free cells). A position with
   f >= MAXF is dropped: the search then proves at most MAXF (a real line is far shorter). */
#define MAXF 128
#define NB (MAXF * 64)
static int curb = 0;
static uint32_t *bk[NB]; static uint32_t bn[NB], bc[NB];
static void push(uint32_t node, int f, int h) {
    if (f >= MAXF) return;
    int b = f * 64 + h;
    if (bn[b] == bc[b]) { bc[b] = bc[b] ? bc[b] * 2 : 1024; bk[b] = realloc(bk[b], bc[b] * sizeof(uint32_t)); }
    bk[b][bn[b]++] = node;
    if (b < curb) curb = b;
}

/* Reads one position (9 lines); the foundations are what the position lacks. 0 at the end of input. */
static int read_position(State *st) {
    char line[512];
    memset(st, 0, sizeof *st);
    for (int i = 0; i < 9; i++) {
        if (!fgets(line, sizeof line, stdin)) return 0;
        char *p = line; int v, off;
        while (sscanf(p, "%d%n", &v, &off) == 1) {
            if (v < 4 || v > 55) return 0;
            if (i < 8) { if (st->len[i] >= 31) return 0; st->col[i][st->len[i]++] = v; }
            else { if (st->ncell >= 4) return 0; st->cell[st->ncell++] = v; }
            p += off;
        }
    }
    int cnt[4] = {0, 0, 0, 0};
    for (int i = 0; i < 8; i++) for (int k = 0; k < st->len[i]; k++) cnt[SUIT(st->col[i][k])]++;
    for (int k = 0; k < st->ncell; k++) cnt[SUIT(st->cell[k])]++;
    for (int s = 0; s < 4; s++) st->found[s] = 13 - cnt[s];
    autoplay(st);
    return 1;
}

static int print_bounds(void) {
    State st;
    while (read_position(&st)) printf("%d\n", hval(&st));
    return 0;
}

int main(int argc, char **argv) {
    init_req();
    if (argc > 1 && !strcmp(argv[1], "--h")) return print_bounds();
    maxnodes = argc > 1 ? (uint32_t)atol(argv[1]) : 2000000u;
    double tlimit = argc > 2 ? atof(argv[2]) : 600;
    int upper = argc > 3 ? atoi(argv[3]) : 255; /* prune f >= upper (prove nothing shorter than upper) */
    State root;
    if (!read_position(&root)) return 3;
    uint64_t tsize = 1; while (tsize < (uint64_t)maxnodes * 2) tsize <<= 1;
    tmask = tsize - 1;
    table = calloc(tsize, 4);
    keys = malloc((uint64_t)maxnodes * KEYLEN); gs = malloc(maxnodes); hs = malloc(maxnodes);
    parent = malloc((uint64_t)maxnodes * 4); closed = calloc(maxnodes, 1);
    uint8_t key[KEYLEN]; int fnd;
    make_key(&root, key);
    uint32_t slot = lookup(key, &fnd);
    memcpy(keys, key, KEYLEN); gs[0] = 0; hs[0] = hval(&root); parent[0] = 0xffffffff; table[slot] = 1; nnodes = 1;
    push(0, hs[0], hs[0]);
    clock_t t0 = clock();
    uint64_t expanded = 0; int goal = -1; int stop = 0; int popf = 0;
    Move moves[256];
    while (!stop) {
        while (curb < NB && bn[curb] == 0) curb++;
        if (curb >= NB) break;
        uint32_t node = bk[curb][--bn[curb]];
        int f = curb / 64;
        if (f >= upper) { break; }
        if (gs[node] + hs[node] != f || closed[node]) continue;
        closed[node] = 1; popf = f;
        if (hs[node] == 0) { /* maybe won */
            const uint8_t *k = keys + (uint64_t)node * KEYLEN; int any = 0;
            for (int i = 0; i < KEYLEN; i++) if (k[i]) { any = 1; break; }
            if (!any) { goal = node; break; }
        }
        State st; decode_key(keys + (uint64_t)node * KEYLEN, &st);
        int nm = gen_moves(&st, moves);
        expanded++;
        if ((expanded & 0xffff) == 0) {
            double el = (double)(clock() - t0) / CLOCKS_PER_SEC;
            if (el > tlimit) { stop = 1; }
        }
        int g1 = gs[node] + 1;
        for (int m = 0; m < nm; m++) {
            State ch = st; apply(&ch, moves[m]);
            make_key(&ch, key);
            uint32_t r = lookup(key, &fnd);
            if (fnd) {
                if (gs[r] > g1) { gs[r] = g1; parent[r] = node; closed[r] = 0; push(r, g1 + hs[r], hs[r]); }
                continue;
            }
            if (nnodes >= maxnodes) { stop = 2; break; }
            uint32_t id = nnodes++;
            memcpy(keys + (uint64_t)id * KEYLEN, key, KEYLEN);
            gs[id] = g1; hs[id] = hval(&ch); parent[id] = node; table[r] = id + 1;
            if (g1 + hs[id] < upper) push(id, g1 + hs[id], hs[id]);
        }
    }
    double el = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (goal < 0) {
        while (curb < NB && bn[curb] == 0) curb++;
        int bound = curb < NB ? curb / 64 : (upper < MAXF ? upper : MAXF);
        if (bound > upper) bound = upper;
        if (stop == 2 && popf < bound) bound = popf; /* the node cut off mid-expansion */
        printf("bound %d nodes %u expanded %lu seconds %.1f stop %d\n", bound, nnodes, (unsigned long)expanded, el, stop);
        return 2;
    }
    /* reconstruct: chain of keys from root to goal, then replay on the real root */
    uint32_t chain[300]; int len = 0;
    for (uint32_t v = goal; v != 0xffffffff; v = parent[v]) chain[len++] = v;
    printf("optimal %d nodes %u expanded %lu seconds %.1f\n", len - 1, nnodes, (unsigned long)expanded, el);
    State cur = root;
    for (int i = len - 2; i >= 0; i--) {
        const uint8_t *want = keys + (uint64_t)chain[i] * KEYLEN;
        int nm = gen_moves(&cur, moves), ok = 0;
        for (int m = 0; m < nm; m++) {
            State ch = cur; apply(&ch, moves[m]); make_key(&ch, key);
            if (!memcmp(key, want, KEYLEN)) { printf("%d %d %d %d\n", moves[m].src, moves[m].dst, moves[m].n, moves[m].card); cur = ch; ok = 1; break; }
        }
        if (!ok) { printf("reconstruction failed\n"); return 4; }
    }
    return 0;
}
