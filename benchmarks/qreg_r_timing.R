# Wall time of R's quantreg on benchlab's quantile regression workloads, so
# that benchmarks/qreg.py can put R's time beside benchlab's in one report.
#
# Usage
#     Rscript benchmarks/qreg_r_timing.R DATA.csv [--taus 0.1,0.2,...,0.9,0.99]
#         [--factors a,b,c,d] [--repeats 5] [--method fn]
#         [--general] [--general-n 100000] [--general-p 16] [--seed 1]
#         [--general-file X.csv]
#
#   DATA.csv   a table with a numeric column `y` and the factor columns (two
#              levels each, coded -1/+1 in order of first appearance; coding
#              does not change the time). Use `-` for no file (with --general).
#   --taus     comma-separated quantiles, fitted in one call (default the
#              STATS.md section 9 grid 0.1, ..., 0.9, 0.99)
#   --factors  the factor columns, joined as a*b*c*d in the formula
#   --repeats  timed runs of each fit (after one untimed warm-up run)
#   --method   rq's method (default "fn", Frisch-Newton; "pfn" adds
#              Portnoy-Koenker preprocessing; "br" is the simplex)
#   --general  also time a general (non-saturated) model: n x p design with an
#              intercept and p - 1 standard normal columns, y = X beta + t(3)
#              noise (seeded), rq(y ~ X, tau = taus, method = method)
#   --general-file  the general model's data instead: a CSV with `y` and the
#              columns of X (no intercept column; rq adds it), so both tools
#              fit the same numbers
#
# Prints one JSON document on stdout:
#     {"r_version", "quantreg_version", "method", "taus", "repeats",
#      "factorial": {"file", "formula", "n", "p", "seconds": [...],
#                    "min_seconds", "median_seconds"} or null,
#      "general": {"n", "p", "seed", "file", "seconds": [...], "min_seconds",
#                  "median_seconds", "objectives": [check loss per tau]} or null}
# Times are wall-clock seconds of the rq() call alone (model frame included,
# CSV reading and data generation excluded), from proc.time()'s elapsed.
#
# Example (from the repository root):
#     Rscript benchmarks/qreg_r_timing.R data.csv --taus 0.5,0.99 --repeats 3 --general

suppressPackageStartupMessages({
  library(quantreg)
  library(jsonlite)
})

usage <- function(msg) {
  cat("qreg_r_timing.R:", msg, "\n", file = stderr())
  cat("usage: Rscript benchmarks/qreg_r_timing.R DATA.csv [--taus T1,T2,...]",
      "[--factors a,b,c,d] [--repeats N] [--method fn] [--general]",
      "[--general-n N] [--general-p P] [--seed S]\n", file = stderr())
  quit(status = 2)
}

parse_args <- function(argv) {
  opt <- list(file = NULL, taus = c(seq(1, 9) / 10, 0.99), factors = c("a", "b", "c", "d"),
              repeats = 5L, method = "fn", general = FALSE, general_n = 100000L,
              general_p = 16L, seed = 1L, general_file = NULL)
  i <- 1L
  value <- function() {
    if (i + 1L > length(argv)) usage(paste(argv[i], "needs a value"))
    argv[i + 1L]
  }
  while (i <= length(argv)) {
    a <- argv[i]
    if (a == "--taus") {
      opt$taus <- as.numeric(strsplit(value(), ",")[[1]]); i <- i + 1L
    } else if (a == "--factors") {
      opt$factors <- strsplit(value(), ",")[[1]]; i <- i + 1L
    } else if (a == "--repeats") {
      opt$repeats <- as.integer(value()); i <- i + 1L
    } else if (a == "--method") {
      opt$method <- value(); i <- i + 1L
    } else if (a == "--general") {
      opt$general <- TRUE
    } else if (a == "--general-n") {
      opt$general_n <- as.integer(value()); i <- i + 1L
    } else if (a == "--general-p") {
      opt$general_p <- as.integer(value()); i <- i + 1L
    } else if (a == "--general-file") {
      opt$general <- TRUE
      opt$general_file <- value(); i <- i + 1L
    } else if (a == "--seed") {
      opt$seed <- as.integer(value()); i <- i + 1L
    } else if (a %in% c("-h", "--help")) {
      usage("times quantreg::rq on a factorial CSV (and a general model)")
    } else if (startsWith(a, "--")) {
      usage(paste("unknown option", a))
    } else if (is.null(opt$file)) {
      opt$file <- a
    } else {
      usage(paste("unexpected argument", a))
    }
    i <- i + 1L
  }
  if (is.null(opt$file)) usage("missing DATA.csv (use - with --general for no file)")
  if (anyNA(opt$taus) || any(opt$taus <= 0 | opt$taus >= 1)) usage("taus must be in (0, 1)")
  if (is.na(opt$repeats) || opt$repeats < 1L) usage("--repeats must be a positive integer")
  if (opt$file == "-" && !opt$general) usage("nothing to time: give DATA.csv or --general")
  opt
}

# Elapsed seconds of `expr` (evaluated `repeats` times after one warm-up).
time_it <- function(fit, repeats) {
  fit()
  vapply(seq_len(repeats), function(k) {
    gc(verbose = FALSE)
    t0 <- proc.time()[["elapsed"]]
    fit()
    proc.time()[["elapsed"]] - t0
  }, 0)
}

summary_of <- function(seconds) {
  list(seconds = I(seconds), min_seconds = min(seconds), median_seconds = median(seconds))
}

opt <- parse_args(commandArgs(trailingOnly = TRUE))

factorial <- NULL
if (opt$file != "-") {
  if (!file.exists(opt$file)) usage(paste("no such file:", opt$file))
  d <- read.csv(opt$file, stringsAsFactors = FALSE)
  missing <- setdiff(c("y", opt$factors), names(d))
  if (length(missing)) usage(paste("missing columns:", paste(missing, collapse = ", ")))
  for (f in opt$factors) {
    lev <- unique(d[[f]])
    if (length(lev) != 2L) usage(paste("factor", f, "needs exactly two levels"))
    d[[f]] <- ifelse(d[[f]] == lev[1], -1, 1)
  }
  form <- as.formula(paste("y ~", paste(opt$factors, collapse = "*")))
  secs <- time_it(function() rq(form, tau = opt$taus, data = d, method = opt$method),
                  opt$repeats)
  factorial <- c(list(file = opt$file, formula = deparse(form), n = nrow(d),
                      p = 2L^length(opt$factors)), summary_of(secs))
}

general <- NULL
if (opt$general) {
  if (is.null(opt$general_file)) {
    set.seed(opt$seed)
    n <- opt$general_n
    p <- opt$general_p
    X <- matrix(rnorm(n * (p - 1L)), n, p - 1L)
    y <- drop(1 + X %*% seq(0.5, 2, length.out = p - 1L)) + rt(n, df = 3)
  } else {
    if (!file.exists(opt$general_file)) usage(paste("no such file:", opt$general_file))
    g <- read.csv(opt$general_file)
    if (!("y" %in% names(g))) usage("--general-file needs a column y")
    y <- g$y
    X <- as.matrix(g[setdiff(names(g), "y")])
    n <- nrow(X)
    p <- ncol(X) + 1L
  }
  last <- NULL
  secs <- time_it(function() last <<- rq(y ~ X, tau = opt$taus, method = opt$method),
                  opt$repeats)
  res <- as.matrix(residuals(last))
  objectives <- vapply(seq_along(opt$taus), function(k) {
    u <- res[, k]
    sum(u * (opt$taus[k] - (u < 0)))
  }, 0)
  general <- c(list(n = n, p = p, seed = if (is.null(opt$general_file)) opt$seed else NULL,
                    file = opt$general_file),
               summary_of(secs), list(objectives = I(objectives)))
}

out <- list(r_version = R.version.string,
            quantreg_version = as.character(packageVersion("quantreg")),
            method = opt$method, taus = I(opt$taus), repeats = opt$repeats,
            factorial = factorial, general = general)
cat(toJSON(out, auto_unbox = TRUE, digits = NA, null = "null", pretty = TRUE), "\n")
