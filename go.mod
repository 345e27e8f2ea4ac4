module pmx

go 1.26.8
