# The Speedup-Test protocol's six tests in plain R, for the R figure beside ours (issue 11).
#
# Usage: Rscript benchmarks/six_tests.R CONFIG.csv [OUT.csv]
#
# Reads a speeduptest config (columns benchmark,initial,optimized,weight; `#` lines are
# comments; sample paths relative to the config's folder unless absolute; each sample file is
# plain text, one number per line) and, for every pair, in a loop as an R user would write it:
#   shapiro.test on both samples, var.test, t.test(x, y, alternative = "greater") with
#   var.equal = TRUE (Student) and FALSE (Welch), ks.test on the median-centred samples and
#   wilcox.test(x, y, alternative = "greater"), all with R's defaults for exactness (exact
#   Wilcoxon below 50 values a side without ties; exact KS when n·m < 10,000, conditional on the
#   ties since R 4.2).
# Writes one CSV line of p-values per benchmark (header first) to OUT.csv, or to stdout without
# a second argument; NA where R gives no p-value (e.g. constant samples). Only base R is used.

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1L || length(args) > 2L) {
  stop("usage: Rscript benchmarks/six_tests.R CONFIG.csv [OUT.csv]")
}
config_path <- args[1L]
folder <- dirname(normalizePath(config_path))
config <- read.csv(config_path, comment.char = "#", stringsAsFactors = FALSE,
                   strip.white = TRUE, colClasses = "character")

sample_path <- function(path) {
  if (grepl("^(/|[A-Za-z]:[/\\\\])", path)) path else file.path(folder, path)
}
read_sample <- function(path) {
  scan(sample_path(path), what = double(), comment.char = "#", quiet = TRUE)
}
p_value <- function(expr) {
  p <- tryCatch(suppressWarnings(expr$p.value), error = function(e) NA_real_)
  if (is.null(p) || !is.finite(p)) NA_real_ else unname(p)
}
number <- function(p) if (is.na(p)) "NA" else sprintf("%.17g", p)
quoted <- function(text) paste0("\"", gsub("\"", "\"\"", text, fixed = TRUE), "\"")

lines <- character(nrow(config) + 1L)
lines[1L] <- paste("benchmark", "shapiro_initial", "shapiro_optimized", "f_test",
                   "t_student", "t_welch", "ks_test", "wilcoxon", sep = ",")
for (i in seq_len(nrow(config))) {
  x <- read_sample(config$initial[i])
  y <- read_sample(config$optimized[i])
  p <- c(
    p_value(shapiro.test(x)),
    p_value(shapiro.test(y)),
    p_value(var.test(x, y)),
    p_value(t.test(x, y, alternative = "greater", var.equal = TRUE)),
    p_value(t.test(x, y, alternative = "greater", var.equal = FALSE)),
    p_value(ks.test(x - median(x), y - median(y))),
    p_value(wilcox.test(x, y, alternative = "greater"))
  )
  lines[i + 1L] <- paste(c(quoted(config$benchmark[i]), vapply(p, number, "")), collapse = ",")
}

if (length(args) == 2L) writeLines(lines, args[2L]) else writeLines(lines)
