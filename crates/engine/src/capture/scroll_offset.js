(function() { return [window.scrollX, window.scrollY]; })
