module weald

go 1.26
