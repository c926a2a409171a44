;;; complex-edit-review.el --- Keep or drop proposed changes one by one  -*- lexical-binding: t; -*-

;;; Commentary:

;; `complex-edit-review' asks the server for hunks (`review: true'; an editor without change
;; annotations gets them with nothing applied).  Each hunk is shown in the buffer: the old text
;; highlighted, the new text after it.  The buffer is read-only while the review lasts; the keys
;; are y (keep), n (drop), a (keep this and the rest), d (drop this and the rest), RET (apply
;; the kept ones now), q (quit, apply nothing), TAB / S-TAB (next / previous).  Once every hunk
;; is decided, the kept ones are applied as one undo step, and only if their old text is still
;; where the server saw it.

;;; Code:

(require 'cl-lib)
(require 'complex-edit)

(defface complex-edit-review-old '((t :inherit diff-removed :strike-through t))
  "Text a proposed change replaces."
  :group 'complex-edit)

(defface complex-edit-review-new '((t :inherit diff-added))
  "Text a proposed change inserts."
  :group 'complex-edit)

(cl-defstruct (complex-edit--hunk (:constructor complex-edit--hunk-create))
  overlay old new label decision)

(defvar-local complex-edit--review nil
  "The review in this buffer: a plist (:answer :hunks :index :read-only).")

(defvar complex-edit-review-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "y") #'complex-edit-review-keep)
    (define-key map (kbd "n") #'complex-edit-review-drop)
    (define-key map (kbd "a") #'complex-edit-review-keep-rest)
    (define-key map (kbd "d") #'complex-edit-review-drop-rest)
    (define-key map (kbd "RET") #'complex-edit-review-apply)
    (define-key map (kbd "q") #'complex-edit-review-quit)
    (define-key map (kbd "C-g") #'complex-edit-review-quit)
    (define-key map (kbd "TAB") #'complex-edit-review-next)
    (define-key map (kbd "<backtab>") #'complex-edit-review-previous)
    map)
  "Keys of a review.")

(define-minor-mode complex-edit-review-mode
  "Deciding which proposed changes to keep.
\\{complex-edit-review-mode-map}"
  :lighter " Review")

(defun complex-edit-review--region (hunk backend)
  "The (START . END) of the proposed HUNK in the buffer.
Nil when its old text is not there."
  (let* ((range (plist-get hunk :range))
         (to-point (plist-get backend :to-point))
         (start (funcall to-point (plist-get range :start)))
         (end (funcall to-point (plist-get range :end))))
    (when (equal (buffer-substring-no-properties start end) (plist-get hunk :oldText))
      (cons start end))))

(defun complex-edit-review--hunks (answer backend)
  "The hunks of ANSWER placed in the buffer, or nil when the buffer moved on."
  (let ((regions (mapcar (lambda (hunk) (complex-edit-review--region hunk backend))
                         (plist-get answer :hunks))))
    ;; The ranges are in the coordinates of the answer's version: each must still find its
    ;; old text exactly where it points (always true while the buffer is at that version).
    (when (not (memq nil regions))
      (cl-mapcar
       (lambda (hunk region)
         (let ((overlay (make-overlay (car region) (cdr region) nil nil nil))
               (new (plist-get hunk :newText)))
           (overlay-put overlay 'face 'complex-edit-review-old)
           (overlay-put overlay 'after-string (propertize new 'face 'complex-edit-review-new))
           (overlay-put overlay 'complex-edit-review t)
           (complex-edit--hunk-create :overlay overlay :old (plist-get hunk :oldText) :new new
                                      :label (plist-get hunk :label))))
       (plist-get answer :hunks) regions))))

(defun complex-edit-review-start (answer backend)
  "Review the hunks of ANSWER in the current buffer.
BACKEND reads their positions."
  (let ((hunks (complex-edit-review--hunks answer backend)))
    (if (null hunks)
        (complex-edit-report
         (current-buffer)
         (complex-edit-with answer :success :json-false :applied :json-false
                            :reason "document_changed"
                            :error "the buffer changed since the server read it; nothing was applied"))
      (setq complex-edit--review (list :answer answer :hunks hunks :index 0
                                       :read-only buffer-read-only))
      (setq buffer-read-only t)
      (complex-edit-review-mode 1)
      (complex-edit-review--show))))

(defun complex-edit-review--current ()
  "The hunk being decided."
  (nth (plist-get complex-edit--review :index) (plist-get complex-edit--review :hunks)))

(defun complex-edit-review--show ()
  "Move to the current hunk and say what the keys do."
  (let ((hunks (plist-get complex-edit--review :hunks))
        (current (complex-edit-review--current)))
    (dolist (hunk hunks)
      (overlay-put (complex-edit--hunk-overlay hunk) 'priority (if (eq hunk current) 10 0)))
    (goto-char (overlay-start (complex-edit--hunk-overlay current)))
    (let ((message-log-max nil))
      (message "Change %d/%d%s: y keep, n drop, a/d keep/drop rest, RET apply, q quit"
               (1+ (plist-get complex-edit--review :index)) (length hunks)
               (if-let ((label (complex-edit--hunk-label current))) (format " (%s)" label) "")))))

(defun complex-edit-review--decide (decision &optional rest)
  "Give the current hunk (and with REST every later one) DECISION, then go on."
  (unless complex-edit--review (user-error "Complex Edit: no review here"))
  (let* ((hunks (plist-get complex-edit--review :hunks))
         (index (plist-get complex-edit--review :index)))
    (dolist (hunk (if rest (nthcdr index hunks) (list (nth index hunks))))
      (setf (complex-edit--hunk-decision hunk) decision)
      (overlay-put (complex-edit--hunk-overlay hunk) 'face
                   (if (eq decision 'keep) 'complex-edit-review-old 'shadow)))
    (let ((next (cl-position nil hunks :key #'complex-edit--hunk-decision)))
      (if (null next)
          (complex-edit-review-apply)
        (plist-put complex-edit--review :index next)
        (complex-edit-review--show)))))

(defun complex-edit-review-keep () "Keep this change." (interactive)
       (complex-edit-review--decide 'keep))
(defun complex-edit-review-drop () "Drop this change." (interactive)
       (complex-edit-review--decide 'drop))
(defun complex-edit-review-keep-rest () "Keep this change and every later one." (interactive)
       (complex-edit-review--decide 'keep t))
(defun complex-edit-review-drop-rest () "Drop this change and every later one." (interactive)
       (complex-edit-review--decide 'drop t))

(defun complex-edit-review--move (step)
  "Go STEP hunks forward (negative: back), wrapping around."
  (let ((count (length (plist-get complex-edit--review :hunks))))
    (plist-put complex-edit--review :index
               (mod (+ (plist-get complex-edit--review :index) step) count))
    (complex-edit-review--show)))

(defun complex-edit-review-next () "Go to the next change." (interactive)
       (complex-edit-review--move 1))
(defun complex-edit-review-previous () "Go to the previous change." (interactive)
       (complex-edit-review--move -1))

(defun complex-edit-review--end (kept)
  "End the review; KEPT is the list of hunks to apply.
Returns whether they were applied."
  (let* ((review complex-edit--review)
         (hunks (plist-get review :hunks))
         (intact (cl-every (lambda (hunk)
                             (let ((overlay (complex-edit--hunk-overlay hunk)))
                               (equal (buffer-substring-no-properties
                                       (overlay-start overlay) (overlay-end overlay))
                                      (complex-edit--hunk-old hunk))))
                           kept))
         (regions (mapcar (lambda (hunk)
                            (let ((overlay (complex-edit--hunk-overlay hunk)))
                              (list (copy-marker (overlay-start overlay))
                                    (copy-marker (overlay-end overlay))
                                    (complex-edit--hunk-new hunk))))
                          kept)))
    (mapc (lambda (hunk) (delete-overlay (complex-edit--hunk-overlay hunk))) hunks)
    (setq buffer-read-only (plist-get review :read-only)
          complex-edit--review nil)
    (complex-edit-review-mode -1)
    (when (and regions intact)
      (undo-boundary)
      (atomic-change-group
        (let ((group (prepare-change-group)))
          (save-excursion
            (dolist (region (reverse regions))
              (goto-char (nth 0 region))
              (delete-region (nth 0 region) (nth 1 region))
              (insert (nth 2 region))))
          (undo-amalgamate-change-group group)))
      (undo-boundary))
    (and regions intact)))

(defun complex-edit-review-apply ()
  "Apply the changes kept so far and end the review.
The changes not decided yet are dropped."
  (interactive)
  (unless complex-edit--review (user-error "Complex Edit: no review here"))
  (let* ((answer (plist-get complex-edit--review :answer))
         (hunks (plist-get complex-edit--review :hunks))
         (kept (cl-remove-if-not (lambda (hunk) (eq (complex-edit--hunk-decision hunk) 'keep))
                                 hunks))
         (applied (complex-edit-review--end kept))
         (summary (format "kept %d of %d change%s" (length kept) (length hunks)
                          (if (= (length hunks) 1) "" "s")))
         (result (complex-edit-with answer :kept (length kept)
                                    :declined (- (length hunks) (length kept))
                                    :applied (if applied t :json-false) :hunks nil)))
    (complex-edit-report
     (current-buffer)
     (if (or applied (null kept))
         (complex-edit-with result :message
                            (format "%s (%s)" summary (or (plist-get answer :message) "done")))
       (complex-edit-with result :success :json-false :reason "document_changed"
                          :error (format "%s, but the buffer changed under them; nothing \
was applied" summary))))))

(defun complex-edit-review-quit ()
  "End the review without applying anything."
  (interactive)
  (unless complex-edit--review (user-error "Complex Edit: no review here"))
  (dolist (hunk (plist-get complex-edit--review :hunks))
    (setf (complex-edit--hunk-decision hunk) 'drop))
  (complex-edit-review-apply))

(provide 'complex-edit-review)

;;; complex-edit-review.el ends here
