# A plain-R reference of the bivariate normal upper probability of the core's adaptive/risk.hpp
# (bvn_upper()), vectorized over its arguments: the same method written with R's vector operations.
# Gauss-Legendre nodes in (0, 1] and weights of the 6-, 12- and 20-point rules (half of each symmetric
# rule), as the bivariate normal probability below uses them.
ref_bvn_rules <- list(
  list(x = c(0.9324695142031522, 0.6612093864662647, 0.2386191860831970),
       w = c(0.1713244923791705, 0.3607615730481384, 0.4679139345726904)),
  list(x = c(0.9815606342467191, 0.9041172563704750, 0.7699026741943050, 0.5873179542866171,
             0.3678314989981802, 0.1252334085114692),
       w = c(0.04717533638651177, 0.1069393259953183, 0.1600783285433464, 0.2031674267230659,
             0.2334925365383547, 0.2491470458134029)),
  list(x = c(0.9931285991850949, 0.9639719272779138, 0.9122344282513259, 0.8391169718222188,
             0.7463319064601508, 0.6360536807265150, 0.5108670019508271, 0.3737060887154196,
             0.2277858511416451, 0.07652652113349733),
       w = c(0.01761400713915212, 0.04060142980038694, 0.06267204833410906, 0.08327674157670475,
             0.1019301198172404, 0.1181945319615184, 0.1316886384491766, 0.1420961093183821,
             0.1491729864726037, 0.1527533871307259)))

# P(Z1 > h, Z2 > k) for standard normals of correlation r in [0, 1] (vectors): the method of Drezner
# and Wesolowsky (1989) with Genz's (2004) treatment for double precision: for r < 0.925 Gauss-Legendre
# on Plackett's integral over the correlation, in asin(r) (6, 12 or 20 points as r grows); for r near 1
# the expansion about r = 1 with a 20-point rule for its remainder. Accurate to about 1e-15.
ref_bvn_upper <- function(h, k, r) {
  out <- numeric(length(h))
  hk <- h * k
  rule_of <- ifelse(r < 0.3, 1L, ifelse(r < 0.75, 2L, 3L))
  low <- r < 0.925
  for (g in 1:3) {
    i <- which(low & rule_of == g)
    if (!length(i)) next
    x <- c(1 - ref_bvn_rules[[g]]$x, 1 + ref_bvn_rules[[g]]$x)
    w <- c(ref_bvn_rules[[g]]$w, ref_bvn_rules[[g]]$w)
    hs <- (h[i]^2 + k[i]^2) / 2
    asr <- asin(r[i]) / 2
    sn <- sin(outer(asr, x))
    terms <- exp((sn * hk[i] - hs) / (1 - sn^2))
    out[i] <- drop(terms %*% w) * asr / (2 * pi) + stats::pnorm(-h[i]) * stats::pnorm(-k[i])
  }
  i <- which(!low & r < 1)
  if (length(i)) {
    x <- c(1 - ref_bvn_rules[[3]]$x, 1 + ref_bvn_rules[[3]]$x)
    w <- c(ref_bvn_rules[[3]]$w, ref_bvn_rules[[3]]$w)
    hh <- h[i]
    kk <- k[i]
    hki <- hk[i]
    as <- (1 - r[i]) * (1 + r[i])
    a <- sqrt(as)
    bs <- (hh - kk)^2
    asr <- -(bs / as + hki) / 2
    c <- (4 - hki) / 8
    d <- (12 - hki) / 80
    bvn <- ifelse(asr > -100, a * exp(asr) * (1 - c * (bs - as) * (1 - d * bs) / 3 + c * d * as^2), 0)
    b <- sqrt(bs)
    tail <- ifelse(hki > -100, exp(-hki / 2) * sqrt(2 * pi) * stats::pnorm(-b / a) * b * (1 - c * bs * (1 - d * bs) / 3), 0)
    bvn <- bvn - tail
    a <- a / 2
    xs <- outer(a, x)^2
    asr2 <- -(bs / xs + hki) / 2
    sp <- 1 + c * xs * (1 + 5 * d * xs)
    rs <- sqrt(1 - xs)
    ep <- exp(-(hki / 2) * xs / (1 + rs)^2) / rs
    terms <- ifelse(asr2 > -100, exp(asr2) * (sp - ep), 0)
    out[i] <- (a * drop(terms %*% w) - bvn) / (2 * pi) + stats::pnorm(-pmax(hh, kk))
  }
  i <- which(r >= 1)
  out[i] <- stats::pnorm(-pmax(h[i], k[i]))
  pmin(pmax(out, 0), 1)
}

