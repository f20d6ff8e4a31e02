import BooksCore

extension ChangeSet {
    /// This change set as seen by a subscriber whose view is `filter`:
    /// - an inserted book that matches → inserted;
    /// - an update whose old and new values both match → updated;
    ///   only the old values match → deleted (old values); only the new values match → inserted (new);
    /// - a deleted book that matched → deleted.
    ///
    /// Books that match neither before nor after are dropped. Order: the surviving entries keep
    /// their relative order; books entering the view through an update follow the plain inserts,
    /// books leaving it follow the plain deletes. An empty filter returns `self` unchanged.
    public func filtered(by filter: BookFilter) -> ChangeSet {
        if filter.isEmpty { return self }
        var result = ChangeSet()
        var entering: [Book] = []
        var leaving: [Book] = []
        for book in inserted where filter.matches(book) { result.inserted.append(book) }
        for update in updated {
            switch (filter.matches(update.old), filter.matches(update.new)) {
            case (true, true): result.updated.append(update)
            case (true, false): leaving.append(update.old)
            case (false, true): entering.append(update.new)
            case (false, false): break
            }
        }
        for book in deleted where filter.matches(book) { result.deleted.append(book) }
        result.inserted += entering
        result.deleted += leaving
        return result
    }
}

/// `change` as seen through `filter`; the same as `change.filtered(by: filter)`.
public func filtered(_ change: ChangeSet, by filter: BookFilter) -> ChangeSet {
    change.filtered(by: filter)
}
