(function(all, i) { return all[i < 0 ? all.length + i : i] ?? null; })
