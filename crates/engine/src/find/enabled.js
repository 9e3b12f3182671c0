(function() { return !(this.matches(':disabled') || this.closest('[aria-disabled="true"]')); })
