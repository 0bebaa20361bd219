/* parse.c — the paper's position notation (reference: ruma/engine/rulesets/notation.py).
 *
 * Only the happy path is compiled: on any error (and on input the reference would treat in a way
 * not worth copying, such as groups nested deeper than MAX_DEPTH, or the paper's full pots forever
 * '←•' and '•→') parse_pots returns 1 and the caller runs the pure-Python parser, which returns
 * the position or raises the exact NotationError/PositionError the user would get from the
 * reference (errors are rare; their messages stay in one place).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "parse.h"

#define MAX_POTS 10000
#define MAX_SEEDS 1000000
#define MAX_DEPTH 64 /* as the reference: notation.MAX_DEPTH */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t len, i;
    int comma_mode, allow_full, saw_group;
    Buf *out;
    size_t n; /* pots written to out */
} Parser;

static Py_UCS4 at(const Parser *p, Py_ssize_t i) { return PyUnicode_READ(p->kind, p->data, i); }

static int is_full_char(Py_UCS4 c) { return c == 0x2022 /* • */ || c == '#' || c == 0x25CF /* ● */; }

static void skip(Parser *p) {
    while (p->i < p->len) {
        Py_UCS4 c = at(p, p->i);
        if (!(Py_UNICODE_ISSPACE(c) || (p->comma_mode && c == ','))) break;
        p->i++;
    }
}

/* Digits at p->i: their count, the value of the first 9 in *value. */
static Py_ssize_t digits(Parser *p, int64_t *value) {
    Py_ssize_t start = p->i;
    int64_t v = 0;
    while (p->i < p->len) {
        Py_UCS4 c = at(p, p->i);
        if (c < '0' || c > '9') break;
        if (p->i - start < 10) v = v * 10 + (c - '0');
        p->i++;
    }
    *value = v;
    return p->i - start;
}

static int push(Parser *p, pot_t v) {
    pot_t *w = buf_reserve(p->out, p->n + 1);
    if (!w) return -1;
    w[p->n++] = v;
    return 0;
}

/* sequence(top): appends the items to out; 0 on success, 1 for "let the reference decide". */
static int sequence(Parser *p, int top, int depth) {
    size_t base = p->n; /* len(out) of this sequence is p->n - base */
    int64_t total = 0;
    if (depth > MAX_DEPTH) return 1;
    for (;;) {
        skip(p);
        if (p->i >= p->len) return top ? 0 : 1; /* missing ')' */
        Py_UCS4 c = at(p, p->i);
        size_t atom = p->n; /* the atom is out[atom:] */
        if (c == ')') {
            if (top) return 1; /* unbalanced ')' */
            p->i++;
            return 0;
        }
        if (c == '(') {
            p->i++;
            p->saw_group = 1;
            int rc = sequence(p, 0, depth + 1);
            if (rc) return rc;
        } else if (c >= '0' && c <= '9') {
            if (p->comma_mode) {
                int64_t v;
                if (digits(p, &v) > 9) return 1; /* pot too large */
                if (push(p, v) < 0) return -1;
            } else {
                p->i++;
                if (push(p, c - '0') < 0) return -1;
            }
        } else if (is_full_char(c)) {
            if (!p->allow_full) return 1;
            p->i++;
            if (push(p, RUMA_FULL) < 0) return -1;
        } else {
            return 1; /* '-' or any other character */
        }
        if (p->i < p->len && at(p, p->i) == '^') {
            p->i++;
            int braced = p->i < p->len && at(p, p->i) == '{';
            if (braced) p->i++;
            int64_t times;
            Py_ssize_t nd = digits(p, &times);
            if (nd == 0) return 1;
            if (braced) {
                if (p->i >= p->len || at(p, p->i) != '}') return 1;
                p->i++;
            }
            if (nd > 9 || times > MAX_POTS) return 1;
            size_t width = p->n - atom;
            /* checked before the repetition is expanded, as in the reference */
            if ((int64_t)(atom - base) + (int64_t)width * times > MAX_POTS) return 1;
            if (times == 0) {
                p->n = atom;
            } else if (width) {
                pot_t *w = buf_reserve(p->out, atom + width * (size_t)times);
                if (!w) return -1;
                for (int64_t r = 1; r < times; r++) memcpy(w + atom + r * width, w + atom, width * sizeof *w);
                p->n = atom + width * (size_t)times;
            }
        }
        if (p->n - base > MAX_POTS) return 1;
        for (size_t k = atom; k < p->n; k++)
            if (p->out->v[k] < RUMA_FULL) total += p->out->v[k];
        if (total > MAX_SEEDS) return 1;
    }
}

int parse_pots(PyObject *text, int allow_full, Buf *out, size_t *n) {
    if (!PyUnicode_Check(text)) return 1;
    Parser p;
    memset(&p, 0, sizeof p);
    p.kind = PyUnicode_KIND(text);
    p.data = PyUnicode_DATA(text);
    p.len = PyUnicode_GET_LENGTH(text);
    p.comma_mode = PyUnicode_FindChar(text, ',', 0, p.len, 1) >= 0;
    p.allow_full = allow_full;
    p.out = out;
    int rc = sequence(&p, 1, 0);
    if (rc) return rc;
    if (p.i != p.len) return 1;
    if (p.n == 0 && !p.saw_group) return 1; /* empty position */
    *n = p.n;
    return 0;
}
