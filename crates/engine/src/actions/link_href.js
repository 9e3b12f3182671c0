(function() { const a = this.closest('a[href], area[href]'); return a ? a.href : null; })
