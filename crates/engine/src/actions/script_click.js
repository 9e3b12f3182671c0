(function() { this.click(); })
