(function() { return !!this.closest('[draggable=true]'); })
