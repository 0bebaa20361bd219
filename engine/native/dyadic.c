/* dyadic.c — exact dyadic rationals: small fixed-point values and the wide fallback (dyadic.h). */
#include "dyadic.h"

/* the wide table: value i is num[i] / 2^exp[i]; index maps (num, exp) -> i */
static struct {
    PyObject **num;
    int64_t *exp;
    size_t count, cap;
    PyObject *index;
} W;

size_t num_wide_count(void) { return W.count; }

/* x as a Python int numerator and an exponent (x = n / 2^e, n odd unless e = 0); n a new reference. */
static int parts(Num a, PyObject **n, int64_t *e) {
    if (a.w) {
        *n = Py_NewRef(W.num[a.q]);
        *e = W.exp[a.q];
        return 0;
    }
    int64_t q = a.q, exp = 0;
    if (q) {
        int tz = __builtin_ctzll((uint64_t)q);
        if (tz > NUM_FRAC_BITS) tz = NUM_FRAC_BITS;
        q >>= tz; /* exact: the low bits are zero */
        exp = NUM_FRAC_BITS - tz;
    }
    *n = PyLong_FromLongLong(q);
    *e = exp;
    return *n ? 0 : -1;
}

static int64_t bit_length(PyObject *n) {
    PyObject *r = PyObject_CallMethod(n, "bit_length", NULL); /* (a C method of int) */
    if (!r) return -1;
    long long v = PyLong_AsLongLong(r);
    Py_DECREF(r);
    return v;
}

/* The Num of n / 2^e (n a Python int, stolen; e >= 0): reduced, small when it fits, else interned. */
static int make(PyObject *n, int64_t e, Num *out) {
    if (!n) return -1;
    int sign = PyObject_IsTrue(n); /* (n != 0) */
    if (sign < 0) goto fail;
    if (!sign) e = 0;
    if (e > 0) { /* strip factors of two: tz = bit_length(n & -n) - 1 */
        PyObject *neg = PyNumber_Negative(n);
        PyObject *low = neg ? PyNumber_And(n, neg) : NULL;
        Py_XDECREF(neg);
        if (!low) goto fail;
        int64_t tz = bit_length(low) - 1;
        Py_DECREF(low);
        if (tz < -1) goto fail;
        if (tz > e) tz = e;
        if (tz > 0) {
            PyObject *shift = PyLong_FromLongLong(tz), *m = shift ? PyNumber_Rshift(n, shift) : NULL;
            Py_XDECREF(shift);
            if (!m) goto fail;
            Py_SETREF(n, m);
            e -= tz;
        }
    }
    if (e <= NUM_FRAC_BITS) { /* small when n * 2^(32 - e) fits an int64 */
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
        if (v == -1 && PyErr_Occurred()) goto fail;
        int64_t q; /* (exactly the values num_add's small path can reach: every int64) */
        if (!overflow && !__builtin_mul_overflow((int64_t)v, (int64_t)1 << (NUM_FRAC_BITS - e), &q)) {
            Py_DECREF(n);
            *out = num_small(q);
            return 0;
        }
    }
    if (!W.index && !(W.index = PyDict_New())) goto fail;
    PyObject *ee = PyLong_FromLongLong(e), *key = ee ? PyTuple_Pack(2, n, ee) : NULL;
    Py_XDECREF(ee);
    if (!key) goto fail;
    PyObject *found = PyDict_GetItemWithError(W.index, key);
    if (found) {
        Py_DECREF(key);
        Py_DECREF(n);
        *out = (Num){PyLong_AsLongLong(found), 1};
        return 0;
    }
    if (PyErr_Occurred()) goto fail_key;
    if (W.count == W.cap) {
        size_t cap = W.cap ? W.cap * 2 : 16;
        PyObject **num = realloc(W.num, cap * sizeof *num);
        if (num) W.num = num;
        int64_t *exp = num ? realloc(W.exp, cap * sizeof *exp) : NULL;
        if (!exp) {
            PyErr_NoMemory();
            goto fail_key;
        }
        W.exp = exp;
        W.cap = cap;
    }
    PyObject *at = PyLong_FromSize_t(W.count);
    if (!at || PyDict_SetItem(W.index, key, at) < 0) {
        Py_XDECREF(at);
        goto fail_key;
    }
    Py_DECREF(at);
    Py_DECREF(key);
    W.num[W.count] = n; /* (the reference is the table's) */
    W.exp[W.count] = e;
    *out = (Num){(int64_t)W.count++, 1};
    return 0;
fail_key:
    Py_DECREF(key);
fail:
    Py_DECREF(n);
    return -1;
}

/* n << k for k >= 0 (a new reference; n borrowed). */
static PyObject *shifted(PyObject *n, int64_t k) {
    if (!k) return Py_NewRef(n);
    PyObject *s = PyLong_FromLongLong(k);
    PyObject *r = s ? PyNumber_Lshift(n, s) : NULL;
    Py_XDECREF(s);
    return r;
}

/* Both numerators over the common denominator 2^e. */
static int aligned(Num a, Num b, PyObject **na, PyObject **nb, int64_t *e) {
    PyObject *x, *y;
    int64_t ex, ey;
    if (parts(a, &x, &ex) < 0) return -1;
    if (parts(b, &y, &ey) < 0) {
        Py_DECREF(x);
        return -1;
    }
    *e = ex > ey ? ex : ey;
    *na = shifted(x, *e - ex);
    *nb = shifted(y, *e - ey);
    Py_DECREF(x);
    Py_DECREF(y);
    if (!*na || !*nb) {
        Py_XDECREF(*na);
        Py_XDECREF(*nb);
        return -1;
    }
    return 0;
}

int num_cmp(Num a, Num b, int *out) {
    if (!a.w && !b.w) {
        *out = (a.q > b.q) - (a.q < b.q);
        return 0;
    }
    PyObject *x, *y;
    int64_t e;
    if (aligned(a, b, &x, &y, &e) < 0) return -1;
    int lt = PyObject_RichCompareBool(x, y, Py_LT), gt = lt < 0 ? -1 : PyObject_RichCompareBool(x, y, Py_GT);
    Py_DECREF(x);
    Py_DECREF(y);
    if (lt < 0 || gt < 0) return -1;
    *out = gt - lt;
    return 0;
}

int num_add(Num a, Num b, Num *out) {
    int64_t q;
    if (!a.w && !b.w && !__builtin_add_overflow(a.q, b.q, &q)) {
        *out = num_small(q);
        return 0;
    }
    PyObject *x, *y;
    int64_t e;
    if (aligned(a, b, &x, &y, &e) < 0) return -1;
    PyObject *s = PyNumber_Add(x, y);
    Py_DECREF(x);
    Py_DECREF(y);
    return make(s, e, out);
}

int num_neg(Num a, Num *out) {
    if (!a.w && a.q != INT64_MIN) {
        *out = num_small(-a.q);
        return 0;
    }
    PyObject *n;
    int64_t e;
    if (parts(a, &n, &e) < 0) return -1;
    PyObject *m = PyNumber_Negative(n);
    Py_DECREF(n);
    return make(m, e, out);
}

int num_is_integer(Num a) { return a.w ? W.exp[a.q] == 0 : num_is_integer_small(a); }

int num_floor(Num a, Num *out) {
    if (!a.w) {
        *out = num_small(a.q & ~(NUM_ONE - 1)); /* (two's complement: rounds towards -infinity) */
        return 0;
    }
    if (W.exp[a.q] == 0) {
        *out = a;
        return 0;
    }
    PyObject *s = PyLong_FromLongLong(W.exp[a.q]);
    PyObject *f = s ? PyNumber_Rshift(W.num[a.q], s) : NULL; /* floors */
    Py_XDECREF(s);
    return make(f, 0, out);
}

int num_step(Num a, Num *out) {
    if (!a.w) {
        int64_t frac = a.q & (NUM_ONE - 1);
        *out = num_small(frac & -frac);
        return 0;
    }
    return make(PyLong_FromLong(1), W.exp[a.q], out);
}

/* floor(x * 2^j) / 2^j + 1 / 2^j: the next multiple of 2^-j above x */
static int next_multiple(Num x, int64_t j, Num *out) {
    if (!x.w && j <= NUM_FRAC_BITS) {
        int64_t unit = (int64_t)1 << (NUM_FRAC_BITS - j), q;
        if (!__builtin_add_overflow(x.q & ~(unit - 1), unit, &q)) {
            *out = num_small(q);
            return 0;
        }
    }
    PyObject *n;
    int64_t e;
    if (parts(x, &n, &e) < 0) return -1;
    PyObject *scaled, *s = PyLong_FromLongLong(j >= e ? j - e : e - j);
    scaled = !s ? NULL : (j >= e ? PyNumber_Lshift(n, s) : PyNumber_Rshift(n, s));
    Py_XDECREF(s);
    Py_DECREF(n);
    if (!scaled) return -1;
    PyObject *one = PyLong_FromLong(1), *m = one ? PyNumber_Add(scaled, one) : NULL;
    Py_XDECREF(one);
    Py_DECREF(scaled);
    return make(m, j, out);
}

static int ceil_minus_one(Num x, Num *out) { /* ceil(x) - 1 = -floor(-x) - 1 */
    Num t;
    if (num_neg(x, &t) < 0 || num_floor(t, &t) < 0 || num_neg(t, &t) < 0) return -1;
    return num_add(t, num_int(-1), out);
}

int num_simplest_between(const Num *lo, const Num *hi, Num *out) {
    int c;
    Num zero = num_small(0), cand;
    if (!lo && !hi) {
        *out = zero;
        return 0;
    }
    if (!lo) {
        if (num_cmp(*hi, zero, &c) < 0) return -1;
        if (c > 0) {
            *out = zero;
            return 0;
        }
        return ceil_minus_one(*hi, out);
    }
    if (!hi) {
        if (num_cmp(*lo, zero, &c) < 0) return -1;
        if (c < 0) {
            *out = zero;
            return 0;
        }
        return num_floor(*lo, &cand) < 0 ? -1 : num_add(cand, num_int(1), out);
    }
    int clo, chi;
    if (num_cmp(*lo, zero, &clo) < 0 || num_cmp(*hi, zero, &chi) < 0) return -1;
    if (clo < 0 && chi > 0) {
        *out = zero;
        return 0;
    }
    if (clo >= 0) {
        if (num_floor(*lo, &cand) < 0 || num_add(cand, num_int(1), &cand) < 0 || num_cmp(cand, *hi, &c) < 0) return -1;
        if (c < 0) {
            *out = cand;
            return 0;
        }
    } else {
        if (ceil_minus_one(*hi, &cand) < 0 || num_cmp(cand, *lo, &c) < 0) return -1;
        if (c > 0) {
            *out = cand;
            return 0;
        }
    }
    for (int64_t j = 1;; j++) { /* the smallest denominator 2^j with a multiple strictly between */
        if (next_multiple(*lo, j, &cand) < 0 || num_cmp(cand, *hi, &c) < 0) return -1;
        if (c < 0) {
            *out = cand;
            return 0;
        }
    }
}

PyObject *num_to_py(Num a) {
    if (num_is_integer_small(a)) return PyLong_FromLongLong(a.q >> NUM_FRAC_BITS);
    static PyObject *fraction;
    if (!fraction) {
        PyObject *mod = PyImport_ImportModule("fractions");
        fraction = mod ? PyObject_GetAttrString(mod, "Fraction") : NULL;
        Py_XDECREF(mod);
        if (!fraction) return NULL;
    }
    PyObject *n;
    int64_t e;
    if (parts(a, &n, &e) < 0) return NULL;
    if (e == 0) return n;
    PyObject *one = PyLong_FromLong(1), *d = one ? shifted(one, e) : NULL;
    Py_XDECREF(one);
    PyObject *r = d ? PyObject_CallFunctionObjArgs(fraction, n, d, NULL) : NULL;
    Py_XDECREF(d);
    Py_DECREF(n);
    return r;
}

int num_from_py(PyObject *x, Num *out) {
    if (PyLong_Check(x)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (v == -1 && PyErr_Occurred()) return -1;
        if (!overflow && v < ((long long)1 << 30) && v > -((long long)1 << 30)) {
            *out = num_int(v);
            return 0;
        }
        return make(Py_NewRef(x), 0, out);
    }
    PyObject *n = PyObject_GetAttrString(x, "numerator"), *d = n ? PyObject_GetAttrString(x, "denominator") : NULL;
    if (!d || !PyLong_Check(n) || !PyLong_Check(d)) {
        if (d || n) PyErr_Format(PyExc_TypeError, "not a dyadic number: %R", x);
        Py_XDECREF(n);
        Py_XDECREF(d);
        return -1;
    }
    int64_t bits = bit_length(d);
    PyObject *one = PyLong_FromLong(1), *power = one && bits > 0 ? shifted(one, bits - 1) : NULL;
    Py_XDECREF(one);
    int ok = power ? PyObject_RichCompareBool(power, d, Py_EQ) : -1;
    Py_XDECREF(power);
    Py_DECREF(d);
    if (ok <= 0) {
        if (ok == 0) PyErr_Format(PyExc_ValueError, "not a dyadic rational (a short game number): %R", x);
        Py_DECREF(n);
        return -1;
    }
    return make(n, bits - 1, out);
}

uint64_t num_hash(Num a) {
    uint64_t h = (uint64_t)a.q * 0x9E3779B97F4A7C15ULL + (uint64_t)a.w;
    return h ^ (h >> 29);
}
