module example.com/blosc2-go

go 1.19
