(function() { return this.type === 'radio'; })
