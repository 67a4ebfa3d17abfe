# Independent R reference for the order and dependence checks of speeduptest/stats/steady.py:
# Mann-Kendall's trend test, Friedman's position test and the lag-1 autocorrelation.
#
# Regenerate the fixture (from the repository root; R >= 4, base R only):
#
#     Rscript tests/stats/steady_against_r.R
#
# It writes tests/fixtures/steady_r.json (relative to this script's folder, whatever the
# current directory is), which tests/stats/test_steady_against_r.py reads; CI has no R and
# only reads the committed JSON. The JSON is written by hand (no jsonlite): every number with
# sprintf("%.17g"), so the double Python reads is bit-for-bit the double R used, inputs
# included. Random inputs come from set.seed per case and are rounded before use (the rounded
# values are the inputs, and are written out).
#
# Top-level keys: "generated_by", "r_version", "mann_kendall", "friedman", "lag1".
#
# 1. "mann_kendall": {"name", "x", "tau", "p_value"}:
#      ct <- cor.test(seq_along(x), x, method = "kendall", exact = FALSE, continuity = FALSE)
#      tau = ct$estimate (Kendall's tau-b), p_value = ct$p.value (two-sided, normal
#      approximation of S with the tie-corrected variance).
# 2. "friedman": {"name", "groups", "statistic", "p_value"}: "groups" are the invocations
#    (possibly of unequal lengths); the table is their first L values, L the shortest length,
#    one row per invocation:
#      ft <- friedman.test(m)   # m: invocations x positions
#    friedman.test of a matrix takes its rows as blocks and its columns as groups
#    (treatments): blocks = invocations, treatments = positions, as position_effect does.
# 3. "lag1": {"name", "x", "r1"}: r1 = acf(x, lag.max = 1, plot = FALSE)$acf[2]
#    (demeaned, both sums over n: r1 = sum (x_t - m)(x_{t+1} - m) / sum (x_t - m)^2).

## ---------------------------------------------------------------- output path
script_path <- local({
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[grep("^--file=", a)])
  if (length(f) == 1L) normalizePath(f) else NA_character_
})
stats_dir <- if (!is.na(script_path)) dirname(script_path) else file.path("tests", "stats")
out_file <- file.path(dirname(stats_dir), "fixtures", "steady_r.json")

## ---------------------------------------------------------------- JSON by hand
jnum <- function(v) {
  if (is.null(v) || length(v) == 0L || !is.finite(v)) return("null")
  s <- sprintf("%.17g", v)
  if (s == "-0") s <- "0"
  s
}
jstr <- function(s) paste0("\"", gsub("\"", "\\\\\"", s), "\"")
jarr <- function(v) paste0("[", paste(vapply(v, jnum, ""), collapse = ", "), "]")
jobj <- function(fields) {
  paste0("{", paste(sprintf("\"%s\": %s", names(fields), unlist(fields)), collapse = ", "),
         "}")
}
jlist <- function(items) paste0("[\n    ", paste(items, collapse = ",\n    "), "\n  ]")

## ---------------------------------------------------------------- Mann-Kendall
ar1 <- function(n, phi) {
  e <- rnorm(n)
  x <- numeric(n)
  x[1] <- e[1] / sqrt(1 - phi^2)
  for (t in 2:n) x[t] <- phi * x[t - 1] + e[t]
  x
}
mk_series <- list(
  list("iid n10", 101, function() round(10 + rnorm(10), 6)),
  list("trend up n10", 102, function() round(10 + 0.3 * (1:10) + rnorm(10), 6)),
  list("ties n10", 103, function() round(10 + rnorm(10) * 2) / 2),
  list("monotone n10", 104, function() round(cumsum(rexp(10)) + 5, 6)),
  list("iid n31", 311, function() round(exp(rnorm(31, 2, 0.1)), 6)),
  list("trend down n31", 312, function() round(20 - 0.2 * (1:31) + rnorm(31), 6)),
  list("ties n31", 313, function() round(3 + rnorm(31))),
  list("ties and trend n31", 314, function() round(2 + 0.1 * (1:31) + rnorm(31))),
  list("iid n100", 1001, function() round(1 + 0.05 * rnorm(100), 6)),
  list("weak trend n100", 1002, function() round(100 + 0.02 * (1:100) + rnorm(100), 6)),
  list("strong trend n100", 1003, function() round(100 - 0.5 * (1:100) + rnorm(100), 6)),
  list("heavy ties n100", 1004, function() round(5 + 0.01 * (1:100) + rnorm(100) / 2)),
  list("ar1 ties n100", 1005, function() round(10 + ar1(100, 0.6), 1)),
  # Longer than MAX_PAIRWISE (2,000): steady.py hands it to scipy.
  list("ties n2100", 2100, function() round(50 + 0.0002 * (1:2100) + rnorm(2100), 1))
)
mann_kendall <- vapply(mk_series, function(case) {
  set.seed(case[[2]])
  x <- case[[3]]()
  ct <- cor.test(seq_along(x), x, method = "kendall", exact = FALSE, continuity = FALSE)
  jobj(list(name = jstr(case[[1]]), x = jarr(x), tau = jnum(unname(ct$estimate)),
            p_value = jnum(ct$p.value)))
}, "")

## ---------------------------------------------------------------- Friedman
friedman_cases <- list(
  list("3 x 3", 21, function() lapply(1:3, function(i) round(10 + rnorm(3), 6))),
  list("5 invocations x 10 positions", 22,
       function() lapply(1:5, function(i) round(10 + rnorm(10), 6))),
  list("10 invocations x 5 positions, effect", 23,
       function() lapply(1:10, function(i) round(10 + 0.5 * (5:1) + rnorm(5) + rnorm(1), 6))),
  list("8 x 6 ties", 24, function() lapply(1:8, function(i) round(3 + rnorm(6)))),
  list("20 x 30 warm-up", 25, function() lapply(1:20, function(i)
    round(exp(rnorm(1, 0, 0.2) + 0.8 * exp(-(1:30) / 4) + rnorm(30, 0, 0.05)), 6))),
  list("ragged 6 invocations", 26, function() lapply(c(12, 9, 15, 9, 10, 20), function(k)
    round(5 + rnorm(k), 6)))
)
friedman <- vapply(friedman_cases, function(case) {
  set.seed(case[[2]])
  groups <- case[[3]]()
  L <- min(lengths(groups))
  m <- do.call(rbind, lapply(groups, function(g) g[1:L]))  # rows: invocations
  ft <- friedman.test(m)
  stopifnot(ft$parameter == L - 1)  # the columns (positions) are the treatments
  jobj(list(name = jstr(case[[1]]),
            groups = paste0("[", paste(vapply(groups, jarr, ""), collapse = ", "), "]"),
            statistic = jnum(unname(ft$statistic)), p_value = jnum(ft$p.value)))
}, "")

## ---------------------------------------------------------------- lag-1 autocorrelation
lag1_cases <- list(
  list("iid n10", 31, function() round(10 + rnorm(10), 6)),
  list("iid n50", 32, function() round(10 + rnorm(50), 6)),
  list("ar1 0.7 n200", 33, function() round(10 + ar1(200, 0.7), 6)),
  list("ar1 -0.5 n100", 34, function() round(10 + ar1(100, -0.5), 6)),
  list("ties n40", 35, function() round(3 + rnorm(40))),
  list("trend n500", 36, function() round(exp(0.001 * (1:500) + rnorm(500, 0, 0.1)), 6))
)
lag1 <- vapply(lag1_cases, function(case) {
  set.seed(case[[2]])
  x <- case[[3]]()
  r1 <- acf(x, lag.max = 1, plot = FALSE)$acf[2]
  jobj(list(name = jstr(case[[1]]), x = jarr(x), r1 = jnum(r1)))
}, "")

## ---------------------------------------------------------------- output
json <- paste0(
  "{\n",
  "  \"generated_by\": \"tests/stats/steady_against_r.R\",\n",
  "  \"r_version\": ", jstr(R.version.string), ",\n",
  "  \"mann_kendall\": ", jlist(mann_kendall), ",\n",
  "  \"friedman\": ", jlist(friedman), ",\n",
  "  \"lag1\": ", jlist(lag1), "\n",
  "}\n")
writeLines(json, out_file, sep = "")
cat("wrote", out_file, "\n")
