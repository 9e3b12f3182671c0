(function(n) { return this.getAttribute(n); })
