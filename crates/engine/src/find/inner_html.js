(function() { return this.innerHTML ?? ''; })
