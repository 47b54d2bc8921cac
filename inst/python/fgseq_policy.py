#!/usr/bin/env python3
"""Apply an fgseq acquisition policy written by write_predictor().

A plain Python 3 module and command-line script (standard library only: json, math, sys) that reads
the JSON document write_predictor() writes for an "fgseq_policy" (see ?write_predictor, the member
`policy`) and runs the policy on rows exactly as predict(<fgseq_policy>) and next_group() do in R:
the same sweeps in the same order, the same arithmetic where it decides a rounding (sums in the order R
forms them, R's sum() and rowSums() in extended precision, R's pnorm() and dnorm()), the same
Gauss-Legendre rule on the same four pieces, the same tie and budget rules. A policy with a mixture
working model (fgseq_mixture(), binomial; the document's `policy` holds `mixture`) is run as the
package's core runs it (adaptive/mixture.hpp): each component's sweeps and log weight, the mixture's
risk, and each candidate's expected risk over the stored draws; its sums are formed in another order
than the core's, so its numbers agree with R's to rounding (about 1e-12), not to the last bit.

As a module:

    import fgseq_policy
    policy = fgseq_policy.load("policy.json")
    out = policy.predict_row({"age": 63, "sex": 1, "cp": "ta", ...})   # a formula fit: raw variables
    out["groups"], out["cost"], out["link"], out["response"]
    step = policy.next_group({"age": 63, "sex": 1, "cp": "ta"})        # the others not measured yet
    step["group"], step["done"]

From the command line:

    python3 fgseq_policy.py policy.json rows.json [--budget B] [--input variables|columns] [--next]

`rows.json` is a JSON array of objects (one per row, keyed by variable or column name) or a CSV file
(a header line of names; `NA` or an empty field is a value not measured). The rows of a formula fit
are raw variables (`--input variables`, the default; an R expression of the formula such as
`log(chol)` is given under its own name) or the model-matrix columns (`--input columns`); the rows
of a matrix fit are its columns. The output (standard output) is a JSON object with `rows`: per row
`groups` (bought, in order), `cost`, `link`, `response` and `class` (binomial, multinomial), or with
`--next` what next_group() says for each (partially measured) row. On bad input the script writes a
message to standard error and exits with status 2 (bad arguments) or 1 (bad data).
"""

import json
import math
import sys

__all__ = ["load", "Policy", "PolicyError", "pnorm", "dnorm", "main"]


class PolicyError(Exception):
    """A document that is not a policy, or rows the policy cannot score."""


# --- R's arithmetic ---------------------------------------------------------------------------------

INF = float("inf")
M_1_SQRT_2PI = 0.398942280401432677939946059934
M_SQRT_32 = 5.656854249492380195206754896838
M_LN2 = 0.693147180559945309417232121458
DBL_EPSILON = 2.220446049250313080847263336181640625e-16

_PA = (2.2352520354606839287, 161.02823106855587881, 1067.6894854603709582, 18154.981253343561249,
       0.065682337918207449113)
_PB = (47.20258190468824187, 976.09855173777669322, 10260.932208618978205, 45507.789335026729956)
_PC = (0.39894151208813466764, 8.8831497943883759412, 93.506656132177855979, 597.27027639480026226,
       2494.5375852903726711, 6848.1904505362823326, 11602.651437647350124, 9842.7148383839780218,
       1.0765576773720192317e-8)
_PD = (22.266688044328115691, 235.38790178262499861, 1519.377599407554805, 6485.558298266760755,
       18615.571640885098091, 34900.952721145977266, 38912.003286093271411, 19685.429676859990727)
_PP = (0.21589853405795699, 0.1274011611602473639, 0.022235277870649807, 0.001421619193227893466,
       2.9112874951168792e-5, 0.02307344176494017303)
_PQ = (1.28426009614491121, 0.468238212480865118, 0.0659881378689285515, 0.00378239633202758244,
       7.29751555083966205e-5)
_DNORM_ZERO = math.sqrt(-2 * M_LN2 * (-1021 + 1 - 53))
_DNORM_HUGE = 2 * math.sqrt(sys.float_info.max)


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def _trunc16(x):
    return float(math.trunc(x * 16)) / 16


def pnorm(x):
    """The standard normal distribution function, lower tail, as R's pnorm() computes it (Cody 1969;
    the same operations in the same order as R's pnorm_both(), so the same double)."""
    if x != x:
        return x
    y = -x if x < 0 else x
    if y <= 0.67448975:
        if y > 1.1102230246251565e-16:
            xsq = x * x
            xnum = (((0.065682337918207449113 * xsq + 2.2352520354606839287) * xsq + 161.02823106855587881) * xsq
                    + 1067.6894854603709582) * xsq
            xden = (((xsq + 47.20258190468824187) * xsq + 976.09855173777669322) * xsq
                    + 10260.932208618978205) * xsq
        else:
            xnum = xden = 0.0
        return 0.5 + x * (xnum + 18154.981253343561249) / (xden + 45507.789335026729956)
    if y <= M_SQRT_32:
        xnum = 1.0765576773720192317e-8 * y
        xden = y
        for c, d in _PCD:
            xnum = (xnum + c) * y
            xden = (xden + d) * y
        temp = (xnum + 9842.7148383839780218) / (xden + 19685.429676859990727)
        xsq = float(int(y * 16)) / 16
        dl = (y - xsq) * (y + xsq)
        cum = _mexp(-xsq * xsq * 0.5) * _mexp(-dl * 0.5) * temp
        return 1.0 - cum if x > 0 else cum
    if -37.5193 < x < 8.2924:
        xsq = 1.0 / (x * x)
        xnum = ((((0.02307344176494017303 * xsq + 0.21589853405795699) * xsq + 0.1274011611602473639) * xsq
                 + 0.022235277870649807) * xsq + 0.001421619193227893466) * xsq
        xden = ((((xsq + 1.28426009614491121) * xsq + 0.468238212480865118) * xsq + 0.0659881378689285515) * xsq
                + 0.00378239633202758244) * xsq
        temp = xsq * (xnum + 2.9112874951168792e-5) / (xden + 7.29751555083966205e-5)
        temp = (M_1_SQRT_2PI - temp) / y
        xsq = float(int(x * 16)) / 16
        dl = (x - xsq) * (x + xsq)
        cum = _mexp(-xsq * xsq * 0.5) * _mexp(-dl * 0.5) * temp
        return 1.0 - cum if x > 0 else cum
    return 1.0 if x > 0 else 0.0


_mexp = math.exp
_PCD = tuple(zip(_PC[:7], _PD[:7]))


def dnorm(x):
    """The standard normal density as R's dnorm() computes it."""
    if x != x:
        return x
    if math.isinf(x):
        return 0.0
    x = abs(x)
    if x >= _DNORM_HUGE:
        return 0.0
    if x < 5:
        return M_1_SQRT_2PI * math.exp(-0.5 * x * x) / 1.0
    if x > _DNORM_ZERO:
        return 0.0
    x1 = math.ldexp(float(round(math.ldexp(x, 16))), -16)
    x2 = x - x1
    return M_1_SQRT_2PI / 1.0 * (math.exp(-0.5 * x1 * x1) * math.exp((-0.5 * x2 - x1) * x2))


def _round_bits(num, exp, bits):
    """num * 2^exp rounded (half to even) to `bits` significant bits."""
    mag = abs(num)
    extra = mag.bit_length() - bits
    if extra <= 0:
        return num, exp
    q, r = divmod(mag, 1 << extra)
    half = 1 << (extra - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return (q if num > 0 else -q), exp + extra


def ld_sum(values):
    """The sum of doubles as R's sum() and rowSums() form it: in order, in x87 extended precision (a
    64-bit significand), rounded to a double at the end."""
    values = list(values)
    if not all(math.isfinite(v) for v in values):
        total = 0.0
        for v in values:
            total += v
        return total
    num, exp = 0, 0
    for v in values:
        n, d = float(v).as_integer_ratio()
        e = 1 - d.bit_length()
        if num == 0:
            num, exp = n, e
        elif e < exp:
            num, exp = (num << (exp - e)) + n, e
        else:
            num = num + (n << (e - exp))
        num, exp = _round_bits(num, exp, 64)
    if num == 0:
        return 0.0
    return float(num << exp) if exp >= 0 else num / (1 << -exp)


def plogis(x):
    return 1 / (1 + _exp(-x))


def _softmax(eta):
    top = max(eta)
    e = [_exp(v - top) for v in eta]
    s = ld_sum(e)
    return [v / s for v in e]


def _order_decreasing(v):
    """R's order(v, decreasing = TRUE): ties keep their order."""
    return sorted(range(len(v)), key=lambda i: -v[i])


def _union(a, b):
    out = []
    for m in list(a) + list(b):
        if m not in out:
            out.append(m)
    return out


def _limit(v):
    if v is None:
        return None
    if isinstance(v, str):
        if v == "Inf":
            return INF
        raise PolicyError("a threshold or budget is the string %r; only \"Inf\" is allowed" % v)
    return float(v)


# --- The mixture working model's arithmetic (adaptive/mixture.hpp) -----------------------------------

# The posterior weight below which a component is left out as a source of the draws of a group.
MIXTURE_WEIGHT_FLOOR = 1e-13


def _log(v):
    return -INF if v == 0 else math.log(v)


def _normal_sides(m, v):
    """P(eta > 0) and P(eta < 0) for eta ~ N(m, v): the smaller side by erfc, the larger as its
    complement (v = 0: the sign of m, one half each at m = 0)."""
    if v > 0:
        t = m / math.sqrt(v)
        if t >= 0:
            below = 0.5 * math.erfc(t * 0.70710678118654752440)
            return 1 - below, below
        above = 0.5 * math.erfc(-t * 0.70710678118654752440)
        return above, 1 - above
    above = 1.0 if m > 0 else (0.0 if m < 0 else 0.5)
    return above, 1 - above


def _logistic_sides(t):
    """plogis(t) and plogis(-t), each without cancellation."""
    if t >= 0:
        e = _exp(-t)
        return 1 / (1 + e), e / (1 + e)
    e = math.exp(t)
    return e / (1 + e), 1 / (1 + e)


def _mixture_point(lw, m, v):
    """(P1, Q1, pr, qr, risk) of one row under the mixture: the probabilities that eta > 0 and < 0, the
    response's two sides sum_k w_k plogis(+-m_k / sqrt(1 + pi v_k / 8)), and the risk (Q1 when the
    response is above one half, else P1)."""
    top = max(lw)
    total = p1 = q1 = pr = qr = 0.0
    for k in range(len(lw)):
        w = _exp(lw[k] - top)
        total = total + w
        a, b = _normal_sides(m[k], v[k])
        u, d = _logistic_sides(m[k] / math.sqrt(1 + math.pi * v[k] / 8))
        p1 = p1 + w * a
        q1 = q1 + w * b
        pr = pr + w * u
        qr = qr + w * d
    p1, q1, pr, qr = p1 / total, q1 / total, pr / total, qr / total
    return p1, q1, pr, qr, (q1 if pr > qr else p1)


def _dot(a, b):
    acc = 0.0
    for u, v in zip(a, b):
        acc = acc + u * v
    return acc


def _cholesky(S):
    """The lower Cholesky factor of a symmetric positive definite matrix (lists of rows)."""
    n = len(S)
    L = [[0.0] * n for _ in range(n)]
    for j in range(n):
        d = S[j][j] - _dot(L[j][:j], L[j][:j])
        if not (d > 0):
            raise PolicyError("a mixture component's covariance of a group is not positive definite")
        L[j][j] = math.sqrt(d)
        for i in range(j + 1, n):
            L[i][j] = (S[i][j] - _dot(L[i][:j], L[j][:j])) / L[j][j]
    return L


def _forward(L, b):
    """L^-1 b for a lower triangular L."""
    out = []
    for i in range(len(b)):
        out.append((b[i] - _dot(L[i][:i], out)) / L[i][i])
    return out


def _backward_t(L, b):
    """L'^-1 b for a lower triangular L."""
    n = len(b)
    out = [0.0] * n
    for i in range(n - 1, -1, -1):
        acc = b[i]
        for r in range(i + 1, n):
            acc = acc - L[r][i] * out[r]
        out[i] = acc / L[i][i]
    return out


def _lower_times(L, z):
    """L z for a lower triangular L."""
    return [_dot(L[i][:i + 1], z[:i + 1]) for i in range(len(z))]


# --- The policy ---------------------------------------------------------------------------------------

class Policy:
    """An acquisition policy read from the JSON document of write_predictor()."""

    def __init__(self, doc):
        if not isinstance(doc, dict) or doc.get("format") != "fgseq-predictor":
            raise PolicyError("the document is not an fgseq predictor (its format is not \"fgseq-predictor\")")
        pol = doc.get("policy")
        if not isinstance(pol, dict):
            raise PolicyError("the document holds no `policy`: write it with write_predictor(<fgseq_policy>)")
        if doc.get("model") != "linear":
            raise PolicyError("a policy's fit must be linear")
        self.doc = doc
        self.rule = pol["rule"]
        self.family = pol["family"]
        if self.rule not in ("adaptive", "sequence", "cascade"):
            raise PolicyError("unknown rule %r" % self.rule)
        if self.family not in ("binomial", "multinomial", "gaussian"):
            raise PolicyError("unknown family %r" % self.family)
        self.stopping = pol.get("stopping") or ("margin" if self.rule == "cascade" else "reduction")
        if self.stopping not in ("reduction", "lookahead", "risk", "margin") or (self.rule == "cascade" and self.stopping != "margin"):
            raise PolicyError("unknown stopping %r for the rule %r" % (self.stopping, self.rule))
        self.threshold = _limit(pol["threshold"])
        self.tol = None if pol.get("tol") is None else float(pol["tol"])
        self.budget = _limit(pol["budget"])
        self.groups = list(pol["groups"])
        self.paid0 = list(pol.get("paid") or [])
        self.columns = list(doc["columns"])
        self.col_index = {c: i for i, c in enumerate(self.columns)}
        self.cm_columns = [self.col_index[c] for c in pol["columns"]]
        self.col_group = list(pol["column_groups"])
        self.mu = [float(v) for v in pol["mu"]]
        self.diag0 = [float(v) for v in pol["diag0"]]
        self.base = [float(v) for v in pol["base"]]
        self.J = [[float(v) for v in row] for row in pol["J"]]
        self.q = len(self.cm_columns)
        self.P = len(self.base)
        self.eta = list(range(self.q, self.q + self.P))
        if len(self.J) != self.q + self.P or any(len(r) != self.q + self.P for r in self.J):
            raise PolicyError("the policy's J is not (q + P) x (q + P)")
        self.sweep_tol = float(pol["sweep_tolerance"])
        bvn = pol["bivariate_normal"]
        self.bvn_rules = [([float(v) for v in r["x"]], [float(v) for v in r["w"]]) for r in bvn["rules"]]
        self.tie_tol = float(pol["tie_tolerance"])
        self.tie_floor = float(pol["tie_floor"])
        self.budget_tol = float(pol["budget_tolerance"])
        self.classes = doc.get("classes")
        self.responses = list(doc["responses"])
        self.sequence = list(doc["sequence"])
        self.needs = {g["label"]: list(g["measurements"]) for g in doc["groups"]}
        self.group_columns = {g["label"]: [self.col_index[c] for c in g["columns"]] for g in doc["groups"]}
        self.mcost = {m["name"]: float(m["cost"]) for m in doc["measurements"]}
        self.group_pivots = {g: [k for k in range(self.q) if self.col_group[k] == g] for g in self.groups}
        # the prefix models: per step, (intercepts, [(column index, coefficients)] in column order)
        self.prefix_models = []
        group_of = {}
        for g in doc["groups"]:
            for c in g["columns"]:
                group_of[c] = g["label"]
        for j, s in enumerate(doc["steps"]):
            held = set(self.sequence[:j])
            coef = s["coefficients"]
            terms = [(i, [float(v) for v in coef[c]]) for i, c in enumerate(self.columns) if group_of.get(c) in held]
            self.prefix_models.append(([float(v) for v in s["intercept"]], terms))
        self._states = {}
        self._variances = {}
        # a mixture working model (fgseq_mixture(), binomial): each component's conditional model and the draws
        self.mixture = None
        mix = pol.get("mixture")
        if mix is not None:
            if self.family != "binomial" or self.P != 1:
                raise PolicyError("a mixture working model is for binomial policies")
            comps = []
            for c in mix["components"]:
                J = [[float(v) for v in row] for row in c["J"]]
                if len(J) != self.q + 1 or any(len(r) != self.q + 1 for r in J):
                    raise PolicyError("a mixture component's J is not (q + 1) x (q + 1)")
                comps.append({"J": J, "mu": [float(v) for v in c["mu"]], "base": [float(v) for v in c["base"]][0],
                              "diag0": [float(v) for v in c["diag0"]], "log_prior": float(c["log_prior"])})
            if not comps:
                raise PolicyError("a mixture working model has no component")
            draws = [[float(v) for v in row] for row in mix["draws"]]
            if not draws:
                raise PolicyError("a mixture working model has no draws")
            self.mixture = {"components": comps, "draws": draws}
            self._mix_states = {}
            self._mix_candidates = {}

    # -- the conditional model --------------------------------------------------------------------

    def _sweep(self, A, pivots, diag0, variances=None):
        # `variances`: a list that receives the remaining variance of each pivot swept (the log-determinant)
        swept = []
        tol = self.sweep_tol
        for i, j in enumerate(pivots):
            d = A[j][j]
            if not (diag0[i] > 0) or not (d > tol * diag0[i]):
                continue
            if variances is not None:
                variances.append(d)
            a = [row[j] for row in A]
            b = list(A[j])
            A = [[A[r][c] - (a[r] * b[c]) / d for c in range(len(b))] for r in range(len(a))]
            A[j] = [v / d for v in b]
            for r in range(len(a)):
                A[r][j] = a[r] / d
            A[j][j] = -1 / d
            swept.append(j)
        return A, swept

    def _state(self, groups):
        """The swept matrix and pivots after observing `groups` in that order (cached by the path)."""
        key = tuple(groups)
        st = self._states.get(key)
        if st is None:
            if not key:
                st = (self.J, [])
            else:
                A, swept = self._state(key[:-1])
                k = self.group_pivots[key[-1]]
                A, s = self._sweep(A, k, [self.diag0[i] for i in k])
                st = (A, swept + s)
            self._states[key] = st
        return st

    def _candidate_variance(self, groups, g):
        key = (tuple(groups), g)
        V = self._variances.get(key)
        if V is None:
            A, _ = self._state(groups)
            k = self.group_pivots[g]
            idx = k + self.eta
            sub = [[A[r][c] for c in idx] for r in idx]
            sub, _ = self._sweep(sub, list(range(len(k))), [self.diag0[i] for i in k])
            e = range(len(k), len(k) + self.P)
            V = [[sub[r][c] for c in e] for r in e]
            self._variances[key] = V
        return V

    def _moments(self, groups, x):
        A, swept = self._state(groups)
        mean = []
        for c in range(self.P):
            acc = 0.0
            for s in swept:
                acc = acc + (x[self.cm_columns[s]] - self.mu[s]) * A[s][self.eta[c]]
            mean.append(self.base[c] + acc if swept else self.base[c])
        V = [[A[r][c] for c in self.eta] for r in self.eta]
        for c in range(self.P):
            if V[c][c] < 0:
                V[c][c] = 0.0
        return mean, V

    def _response_link(self, m, V):
        if self.family in ("binomial", "multinomial"):
            return [m[c] / math.sqrt(1 + math.pi * V[c][c] / 8) for c in range(self.P)]
        return list(m)

    def _prefix_link(self, x, j):
        intercept, terms = self.prefix_models[j]
        out = []
        for c in range(self.P):
            acc = 0.0
            for i, b in terms:
                acc = acc + x[i] * b[c]
            out.append(acc + intercept[c])
        return out

    def _contrast(self, m, rlink, V):
        if self.P == 1:
            return [1.0], m[0], max(0.0, V[0][0])
        o = _order_decreasing(rlink)
        a = [0.0] * self.P
        a[o[0]] = 1.0
        a[o[1]] = -1.0
        return a, ld_sum(a[c] * m[c] for c in range(self.P)), self._contrast_variance(a, V)

    def _contrast_variance(self, a, V):
        # the variance of the contrast a'eta: V[0][0] for one linear predictor; for the difference of
        # classes f (a = 1) and s (a = -1), V[f][f] + V[s][s] - 2 V[f][s], as the R package computes it
        if self.P == 1:
            return max(0.0, V[0][0])
        f = a.index(1.0)
        s = a.index(-1.0)
        return max(0.0, V[f][f] + V[s][s] - 2.0 * V[f][s])

    # -- risks ---------------------------------------------------------------------------------------

    def _risk(self, m, v):
        if not (v > 0):
            return 0.0
        if self.family == "gaussian":
            return 2 * pnorm(-self.tol / math.sqrt(v))
        return pnorm(-abs(m) / math.sqrt(v))

    def _expected_risk(self, m, v, v_new):
        # pnorm(-a) + pnorm(-b) - 2 P(Z1 > a, Z2 > b), correlation sqrt((v - v_new) / v)
        if self.family == "gaussian":
            return self._risk(m, v_new)
        if not (v_new > 0):
            return 0.0
        d = v - v_new
        if not (d > 0):
            return pnorm(-abs(m) / math.sqrt(v_new))
        a = m / math.sqrt(d)
        b = m / math.sqrt(v)
        both = pnorm(-a) + pnorm(-b) - 2 * self._bvn_upper(a, b, math.sqrt(d / v))
        return min(max(both, 0.0), 1.0)

    def _bvn_upper(self, h, k, r):
        # P(Z1 > h, Z2 > k), correlation r in [0, 1]: Drezner and Wesolowsky (1989) as Genz (2004)
        # refined it, in the arithmetic order of bvn_upper() in the package's core (adaptive/risk.hpp)
        hk = h * k
        if r < 0.925:
            g = 0 if r < 0.3 else (1 if r < 0.75 else 2)
            xs, ws = self.bvn_rules[g]
            x = [1 - t for t in xs] + [1 + t for t in xs]
            w = ws + ws
            hs = (h * h + k * k) / 2
            asr = math.asin(r) / 2
            acc = 0.0
            for xi, wi in zip(x, w):
                sn = math.sin(asr * xi)
                acc = acc + _exp((sn * hk - hs) / (1 - sn * sn)) * wi
            out = acc * asr / (2 * math.pi) + pnorm(-h) * pnorm(-k)
        elif r < 1:
            xs, ws = self.bvn_rules[2]
            x = [1 - t for t in xs] + [1 + t for t in xs]
            w = ws + ws
            as_ = (1 - r) * (1 + r)
            a = math.sqrt(as_)
            bs = (h - k) ** 2
            asr = -(bs / as_ + hk) / 2
            c = (4 - hk) / 8
            d = (12 - hk) / 80
            bvn = a * _exp(asr) * (1 - c * (bs - as_) * (1 - d * bs) / 3 + c * d * as_ ** 2) if asr > -100 else 0.0
            b = math.sqrt(bs)
            tail = (_exp(-hk / 2) * math.sqrt(2 * math.pi) * pnorm(-b / a) * b * (1 - c * bs * (1 - d * bs) / 3)
                    if hk > -100 else 0.0)
            bvn = bvn - tail
            a = a / 2
            acc = 0.0
            for xi, wi in zip(x, w):
                xsq = (a * xi) ** 2
                asr2 = -(bs / xsq + hk) / 2
                if asr2 > -100:
                    sp = 1 + c * xsq * (1 + 5 * d * xsq)
                    rs = math.sqrt(1 - xsq)
                    ep = _exp(-(hk / 2) * xsq / (1 + rs) ** 2) / rs
                    term = _exp(asr2) * (sp - ep)
                else:
                    term = 0.0
                acc = acc + term * wi
            out = (a * acc - bvn) / (2 * math.pi) + pnorm(-max(h, k))
        else:
            out = pnorm(-max(h, k))
        return min(max(out, 0.0), 1.0)

    # -- the mixture working model -------------------------------------------------------------------
    # As the package's core (adaptive/mixture.hpp): per component k the swept matrix A_k of (x_S, eta),
    # its swept pivots and the log-determinant of their covariance; given the row's swept values, its
    # log weight lw_k, the conditional mean m_k and variance v_k of eta.

    def _mix_state(self, groups):
        """Each component's (A, swept pivots, log det of their covariance) after observing `groups` in
        that order (cached by the path)."""
        key = tuple(groups)
        st = self._mix_states.get(key)
        if st is None:
            if not key:
                st = [(c["J"], [], 0.0) for c in self.mixture["components"]]
            else:
                k = self.group_pivots[key[-1]]
                st = []
                for (A, swept, logdet), c in zip(self._mix_state(key[:-1]), self.mixture["components"]):
                    d = []
                    A, s = self._sweep(A, k, [c["diag0"][i] for i in k], d)
                    st.append((A, swept + s, logdet + ld_sum(math.log(v) for v in d)))
            self._mix_states[key] = st
        return st

    def _mixture_numbers(self, groups, x):
        """The node's numbers of one row: per component lw, m, v and the centred swept values; the risk,
        the response's link, the mixture mean of eta and its standard deviation."""
        e = self.q
        lw, m, v, xo = [], [], [], []
        for (A, swept, logdet), c in zip(self._mix_state(groups), self.mixture["components"]):
            d = [x[self.cm_columns[s]] - c["mu"][s] for s in swept]
            acc = 0.0
            for a, s in enumerate(swept):
                acc = acc + d[a] * A[s][e]
            quad = 0.0
            for b, t in enumerate(swept):
                row = 0.0
                for a, s in enumerate(swept):
                    row = row + d[a] * A[s][t]
                quad = quad + row * d[b]
            m.append(c["base"] + acc)
            lw.append(c["log_prior"] - (logdet + len(swept) * math.log(2 * math.pi)) / 2 + 0.5 * quad)
            v.append(max(0.0, A[e][e]))
            xo.append(d)
        pt = _mixture_point(lw, m, v)
        top = max(lw)
        total = mean = spread = 0.0
        for k in range(len(lw)):
            w = _exp(lw[k] - top)
            total = total + w
            mean = mean + w * m[k]
        mean = mean / total
        for k in range(len(lw)):  # the variance of eta: within and between the components
            dm = m[k] - mean
            spread = spread + _exp(lw[k] - top) * (v[k] + dm * dm)
        return {"lw": lw, "m": m, "v": v, "xo": xo, "risk": pt[4], "mean": mean,
                "rlink": _log(pt[2]) - _log(pt[3]), "sd": math.sqrt(spread / total)}

    def _mixture_candidate(self, groups, g):
        """What a candidate group's expected risk needs that does not depend on the row: the pivots every
        component accepts, and per component the factor L of their covariance, the regression b of eta on
        them, eta's variance after them, sum log diag L, and per pair (k, j) the draws of j seen from k."""
        key = (tuple(groups), g)
        cd = self._mix_candidates.get(key)
        if cd is not None:
            return cd
        G = self.group_pivots[g]
        states = self._mix_state(groups)
        comps = self.mixture["components"]
        ok = [True] * len(G)
        for (A, _, _), c in zip(states, comps):
            sub = [[A[r][t] for t in G] for r in G]
            _, piv = self._sweep(sub, list(range(len(G))), [c["diag0"][i] for i in G])
            for a in range(len(G)):
                ok[a] = ok[a] and a in piv
        keep = [G[a] for a in range(len(G)) if ok[a]]
        d = len(keep)
        cd = {"keep": keep}
        if d:
            e = self.q
            L, b, vn, hl = [], [], [], []
            for (A, swept, _), c in zip(states, comps):
                Lk = _cholesky([[A[r][t] for t in keep] for r in keep])
                a = [A[r][e] for r in keep]
                bk = _backward_t(Lk, _forward(Lk, a))
                L.append(Lk)
                b.append(bk)
                vn.append(max(0.0, max(0.0, A[e][e]) - _dot(a, bk)))
                hl.append(ld_sum(math.log(Lk[t][t]) for t in range(d)))
            K = len(comps)
            Z = [z[:d] for z in self.mixture["draws"]]
            T, nz, shift = {}, {}, {}
            for j in range(K):
                Y = [_lower_times(L[j], z) for z in Z]
                for k in range(K):
                    Tk = [_forward(L[k], y) for y in Y]
                    T[k, j] = Tk
                    nz[k, j] = [_dot(t, t) for t in Tk]
                    shift[k, j] = [_dot(b[k], y) for y in Y]
            cd.update(L=L, b=b, vn=vn, hl=hl, T=T, nz=nz, shift=shift)
        self._mix_candidates[key] = cd
        return cd

    def _mixture_expected(self, groups, g, pt):
        """The expected risk after observing group g: the average over the draws of x_g from each
        component j (weight w_j above 1e-13) of the risk after it, each component's weight updated by its
        density of x_g and its mean of eta by its regression on x_g."""
        cd = self._mixture_candidate(groups, g)
        keep = cd["keep"]
        if not keep:
            return pt["risk"]
        states = self._mix_state(groups)
        comps = self.mixture["components"]
        K, d = len(comps), len(keep)
        S = len(self.mixture["draws"])
        lw, m = pt["lw"], pt["m"]
        E = []  # each component's conditional mean of x_g given the row's swept values
        for (A, swept, _), c, xo in zip(states, comps, pt["xo"]):
            col = []
            for t in keep:
                acc = 0.0
                for a, s in enumerate(swept):
                    acc = acc + A[s][t] * xo[a]
                col.append(c["mu"][t] + acc)
            E.append(col)
        top = max(lw)
        w = [_exp(v - top) for v in lw]
        total = 0.0
        for v in w:
            total = total + v
        w = [v / total for v in w]
        expected = 0.0
        for j in range(K):
            if not (w[j] > MIXTURE_WEIGHT_FLOOR):
                continue
            lwd = [[0.0] * K for _ in range(S)]
            M = [[0.0] * K for _ in range(S)]
            for k in range(K):
                delta = [E[j][t] - E[k][t] for t in range(d)]
                u = _forward(cd["L"][k], delta)
                uu, mb = _dot(u, u), _dot(cd["b"][k], delta)
                Tk, nz, sh = cd["T"][k, j], cd["nz"][k, j], cd["shift"][k, j]
                for t in range(S):
                    uz = _dot(u, Tk[t])
                    lwd[t][k] = lw[k] - 0.5 * (uu + 2 * uz + nz[t]) - cd["hl"][k]
                    M[t][k] = m[k] + mb + sh[t]
            acc = 0.0
            for t in range(S):
                acc = acc + _mixture_point(lwd[t], M[t], cd["vn"])[4]
            expected = expected + w[j] * acc / S
        return min(max(expected, 0.0), 1.0)

    # -- costs ---------------------------------------------------------------------------------------

    def marginal_cost(self, g, paid):
        """The cost of the measurements of group g not in `paid`."""
        new = []
        for m in self.needs[g]:
            if m not in paid and m not in new:
                new.append(m)
        return ld_sum(self.mcost[m] for m in new)

    def _fits(self, spent, cost, budget):
        """The budget rule: a cost fits when (spent + cost) (1 - budget_tolerance) <= budget."""
        return (spent + cost) * (1 - self.budget_tol) <= budget

    # -- a node --------------------------------------------------------------------------------------

    def _node(self, groups, paid, spent, x, budget):
        j = len(groups)
        prefix = set(groups) == set(self.sequence[:j])
        if self.mixture is not None:
            pt = self._mixture_numbers(groups, x)
            cond_link, cond_rlink, sd = [pt["mean"]], [pt["rlink"]], pt["sd"]
        else:
            mean, V = self._moments(groups, x)
            cond_link, cond_rlink = mean, self._response_link(mean, V)
            a, cmean, cvar = self._contrast(mean, cond_rlink, V)
            sd = math.sqrt(cvar)
        if prefix:
            link = self._prefix_link(x, j)
            rlink = link
        else:
            link = cond_link
            rlink = cond_rlink
        left = [g for g in self.groups if g not in groups]
        cand = left if self.rule == "adaptive" else left[:1]
        best, score, table = None, -INF, []
        if self.rule == "cascade":
            risk = None
        elif self.mixture is not None:
            risk = pt["risk"]
        else:
            risk = self._risk(cmean, cvar)
        if cand:
            scores = []
            for g in cand:
                mc = self.marginal_cost(g, paid)
                ok = self._fits(spent, mc, budget)
                if self.rule == "cascade":
                    red, sc = None, INF
                else:
                    if self.mixture is not None:
                        expected = self._mixture_expected(groups, g, pt)
                    else:
                        v_new = self._contrast_variance(a, self._candidate_variance(groups, g))
                        expected = self._expected_risk(cmean, cvar, v_new)
                    red = max(0.0, risk - expected)
                    if mc == 0:
                        sc = INF if red > 0 else 0.0
                    else:
                        sc = red / mc
                if not ok:
                    sc = None
                scores.append(sc)
                table.append({"group": g, "marginal_cost": mc, "reduction": red, "score": sc})
            top = max([-INF if s is None else s for s in scores])
            slack = 0.0 if math.isinf(top) else self.tie_tol * max(abs(top), self.tie_floor)
            if top > -INF:
                for g, s in zip(cand, scores):
                    if s is not None and s >= top - slack:
                        best, score = g, s
                        break
        # the lookahead: buying every group left ends at the full model (risk 0) for their marginal cost
        lookahead = score
        if best is not None and self.rule != "cascade":
            running, parts = list(paid), []
            for g in left:
                parts.append(self.marginal_cost(g, running))
                running = _union(running, self.needs[g])
            rest = ld_sum(parts)
            if self._fits(spent, rest, budget):
                every = risk / rest if rest > 0 else (INF if risk > 0 else 0.0)
                lookahead = max(score, every)
        return {"link": link, "rlink": rlink, "prefix": prefix, "best": best, "score": score,
                "lookahead": lookahead, "margin": self._margin(rlink), "risk": risk, "sd": sd,
                "table": table}

    def _margin(self, rlink):
        if self.family == "gaussian":
            return None
        if self.P == 1:
            return abs(plogis(rlink[0]) - 0.5)
        p = sorted(_softmax(rlink), reverse=True)
        return (p[0] - p[1]) / 2

    def _stops(self, ev, threshold):
        if ev["best"] is None:
            return True
        if self.stopping == "margin":
            return ev["margin"] >= threshold
        if self.stopping == "risk":
            return ev["risk"] < threshold
        if self.stopping == "lookahead":
            return ev["lookahead"] < threshold
        return ev["score"] < threshold

    def response(self, rlink):
        """The family's inverse link of the links `rlink` (a list of P numbers)."""
        if self.family == "binomial":
            return [plogis(rlink[0])]
        if self.family == "multinomial":
            return _softmax(rlink)
        return list(rlink)

    def decision_class(self, rlink):
        if self.family == "binomial":
            return self.classes[1 if rlink[0] > 0 else 0]
        if self.family == "multinomial":
            top = max(rlink)
            return self.classes[rlink.index(top)]
        return None

    # -- rows ----------------------------------------------------------------------------------------

    def row_columns(self, row, input="auto", allow_missing=False):
        """The input columns (a list of p numbers, None where not measured) of one row: a dict keyed by
        variable (formula fits, input "variables") or by column ("columns"), or a list in column order."""
        if isinstance(row, (list, tuple)):
            if len(row) != len(self.columns):
                raise PolicyError("a row given as a list must have the %d input columns; it has %d"
                                  % (len(self.columns), len(row)))
            x = [None if v is None else float(v) for v in row]
        elif isinstance(row, dict):
            formula = self.doc.get("formula")
            if input == "auto":
                input = "variables" if formula is not None else "columns"
            if input == "variables":
                if formula is None:
                    raise PolicyError("a matrix fit's rows are its columns (input \"columns\")")
                x = self._from_variables(formula, row)
            elif input == "columns":
                unknown = [k for k in row if k not in self.col_index]
                if unknown:
                    raise PolicyError("the row names columns the fit does not have: " + ", ".join(unknown))
                x = [_number(row.get(c), c) for c in self.columns]
            else:
                raise PolicyError("input must be \"variables\" or \"columns\", not %r" % input)
        else:
            raise PolicyError("a row must be an object (dict) or a list of the input columns")
        if not allow_missing:
            lacking = [self.columns[i] for i in self.cm_columns if x[i] is None]
            if lacking:
                raise PolicyError("the row lacks a value in the model's columns: " + ", ".join(lacking))
        return x

    def _from_variables(self, formula, row):
        values = {}
        for v in formula["variables"]:
            name = v["name"]
            if v["type"] == "factor":
                lev = row.get(name)
                if lev is None:
                    values[name] = None
                    continue
                if isinstance(lev, bool):
                    lev = "TRUE" if lev else "FALSE"
                elif isinstance(lev, float) and lev.is_integer():
                    lev = str(int(lev))
                lev = str(lev)
                if lev in ("NA", ""):
                    values[name] = None
                    continue
                if lev not in v["levels"]:
                    raise PolicyError("the variable %s has the level %r, which the fit does not know" % (name, lev))
                values[name] = lev
            else:
                if name not in row and v.get("expression"):
                    if all(i not in row or row.get(i) is None for i in v.get("inputs") or []):
                        values[name] = None
                        continue
                    raise PolicyError("the formula's expression %s must be given as a column of its own, named %s"
                                      % (name, name))
                values[name] = _number(row.get(name), name)
        out = []
        for cl in formula["columns"]:
            val = 1.0
            for v in cl["numeric"]:
                if values[v] is None:
                    val = None
                    break
                val = val * values[v]
            if val is not None:
                for f in cl["factors"]:
                    lev = values[f["variable"]]
                    if lev is None:
                        val = None
                        break
                    val = val * float(f["coding"][lev])
            out.append(val)
        return out

    def predict_row(self, row, budget=None, input="auto"):
        """Runs the policy on one row whose values are all known, as predict(<fgseq_policy>): a dict with
        `groups` (bought, in order), `cost`, `link`, `response` (lists of P numbers) and `class`."""
        x = self.row_columns(row, input)
        if any(math.isinf(x[i]) or x[i] != x[i] for i in self.cm_columns):
            raise PolicyError("the row holds Inf or NaN in the model's columns")
        budget = self.budget if budget is None else _budget(budget)
        groups = []
        paid = list(self.paid0)
        spent = ld_sum(self.mcost[m] for m in paid)
        while True:
            ev = self._node(groups, paid, spent, x, budget)
            if self._stops(ev, self.threshold):
                return {"groups": list(groups), "cost": spent, "link": ev["link"],
                        "response": self.response(ev["rlink"]), "class": self.decision_class(ev["rlink"])}
            g = ev["best"]
            spent = spent + self.marginal_cost(g, paid)
            paid = _union(paid, self.needs[g])
            groups = groups + [g]

    def predict(self, rows, budget=None, input="auto"):
        """predict_row() on each row of `rows`; `budget` one number or one per row."""
        rows = list(rows)
        budgets = budget if isinstance(budget, (list, tuple)) else [budget] * len(rows)
        if len(budgets) != len(rows):
            raise PolicyError("give one budget, or one per row (%d)" % len(rows))
        return [self.predict_row(r, b, input) for r, b in zip(rows, budgets)]

    def next_group(self, row, budget=None, input="auto"):
        """The next group to measure for one row with the groups measured so far (the others absent or
        None), or that the row can stop, as next_group() in R: a dict with `group` (None when done),
        `done`, `observed`, `cost`, `marginal_cost`, `link`, `response`, `sd`, `risk` and `candidates`."""
        x = self.row_columns(row, input, allow_missing=True)
        budget = self.budget if budget is None else _budget(budget)
        observed = []
        for g in self.groups:
            present = [x[i] is not None for i in self.group_columns[g]]
            if any(present) and not all(present):
                lacking = [self.columns[i] for i in self.group_columns[g] if x[i] is None]
                raise PolicyError("the row holds some columns of the group '%s' and lacks others (%s): a group is "
                                  "measured whole" % (g, ", ".join(lacking)))
            if present and all(present):
                observed.append(g)
        for g in observed:
            if any(math.isinf(x[i]) for i in self.group_columns[g]):
                raise PolicyError("the row holds Inf in a measured group")
        x = [0.0 if v is None else v for v in x]
        paid = list(self.paid0)
        for g in observed:
            paid = _union(paid, self.needs[g])
        spent = ld_sum(self.mcost[m] for m in paid)
        ev = self._node(observed, paid, spent, x, budget)
        done = self._stops(ev, self.threshold)
        full = ev["prefix"] and len(observed) == len(self.groups)
        return {"group": None if done else ev["best"], "done": done, "observed": observed, "cost": spent,
                "marginal_cost": None if done else self.marginal_cost(ev["best"], paid),
                "link": ev["link"], "response": self.response(ev["rlink"]), "sd": 0.0 if full else ev["sd"],
                "risk": ev["risk"], "candidates": ev["table"]}


def _number(v, name):
    if v is None:
        return None
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, str):
        if v in ("NA", ""):
            return None
        try:
            return float(v)
        except ValueError:
            raise PolicyError("the value %r of %s is not a number" % (v, name))
    if isinstance(v, (int, float)):
        return float(v)
    raise PolicyError("the value of %s is not a number" % name)


def _budget(b):
    b = _limit(b)
    if b != b or b < 0:
        raise PolicyError("a budget must be a number >= 0 (or \"Inf\")")
    return b


def load(path):
    """Reads the JSON document of a policy (write_predictor(<fgseq_policy>, path))."""
    with open(path, "r", encoding="utf-8") as f:
        return Policy(json.load(f))


def next_group(policy, row, budget=None, input="auto"):
    """The next group for one partially measured row (`policy`: a Policy or the path of its document)."""
    if isinstance(policy, str):
        policy = load(policy)
    return policy.next_group(row, budget, input)


# --- rows from files ----------------------------------------------------------------------------------

def _csv_fields(line):
    out, field, quoted, i = [], [], False, 0
    while i < len(line):
        ch = line[i]
        if quoted:
            if ch == '"' and i + 1 < len(line) and line[i + 1] == '"':
                field.append('"')
                i += 1
            elif ch == '"':
                quoted = False
            else:
                field.append(ch)
        elif ch == '"':
            quoted = True
        elif ch == ",":
            out.append("".join(field))
            field = []
        else:
            field.append(ch)
        i += 1
    out.append("".join(field))
    return out


def read_rows(path):
    """Rows from a JSON array of objects or a CSV file with a header line."""
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    stripped = text.lstrip()
    if stripped.startswith("[") or stripped.startswith("{"):
        rows = json.loads(text)
        if isinstance(rows, dict):
            rows = [rows]
        if not isinstance(rows, list) or not all(isinstance(r, (dict, list)) for r in rows):
            raise PolicyError("the rows must be a JSON array of objects")
        return rows
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        return []
    header = _csv_fields(lines[0])
    rows = []
    for l in lines[1:]:
        fields = _csv_fields(l)
        if len(fields) != len(header):
            raise PolicyError("a CSV line has %d fields and the header %d" % (len(fields), len(header)))
        rows.append({h: (None if v in ("", "NA") else v) for h, v in zip(header, fields)})
    return rows


USAGE = ("usage: fgseq_policy.py POLICY.json ROWS.(json|csv) [--budget B] [--input variables|columns] [--next]")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    files, budget, input, nxt = [], None, "auto", False
    i = 0
    try:
        while i < len(argv):
            a = argv[i]
            if a == "--budget" and i + 1 < len(argv):
                budget = _budget(argv[i + 1] if argv[i + 1] == "Inf" else float(argv[i + 1]))
                i += 2
            elif a == "--input" and i + 1 < len(argv) and argv[i + 1] in ("variables", "columns"):
                input = argv[i + 1]
                i += 2
            elif a == "--next":
                nxt = True
                i += 1
            elif a.startswith("-"):
                raise ValueError("unknown argument %r" % a)
            else:
                files.append(a)
                i += 1
        if len(files) != 2:
            raise ValueError("give the policy's JSON file and the rows' file")
    except (ValueError, PolicyError) as e:
        sys.stderr.write("fgseq_policy.py: %s\n%s\n" % (e, USAGE))
        return 2
    try:
        policy = load(files[0])
        rows = read_rows(files[1])
        if nxt:
            out = [policy.next_group(r, budget, input) for r in rows]
        else:
            out = policy.predict(rows, budget, input)
    except (OSError, ValueError, KeyError, PolicyError) as e:
        sys.stderr.write("fgseq_policy.py: %s\n" % e)
        return 1
    sys.stdout.write(json.dumps({"rows": out}))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
