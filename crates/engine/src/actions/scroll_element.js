(function(dx, dy) { this.scrollBy(dx, dy); })
