(function() { return this.value ?? ''; })
