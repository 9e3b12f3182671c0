(function() { return this.localName === 'input' ? [this.type, this.multiple] : null; })
