module ssa-referee

go 1.19
