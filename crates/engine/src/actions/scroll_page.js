(function(dx, dy) { window.scrollBy(dx, dy); })
