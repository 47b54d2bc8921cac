library(testthat)
library(fgseq)

test_check("fgseq")
