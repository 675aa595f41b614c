-- 0003: the kv and roster tables of 0001, emptied into their typed tables
-- by 0002, are dropped (the store then rewrites the file, store.md).
DROP TABLE kv;
DROP TABLE roster;
