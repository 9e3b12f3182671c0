(function() { return this.innerText ?? this.textContent ?? ''; })
