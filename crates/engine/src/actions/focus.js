(function() { this.focus(); })
