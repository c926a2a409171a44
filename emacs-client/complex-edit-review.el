;;; complex-edit-review.el --- Keep or drop proposed changes one by one  -*- lexical-binding: t; -*-

;;; Commentary:

;; `complex-edit-review' asks the server for hunks (`review: true'; an editor without change
;; annotations gets them with nothing applied).  Each hunk is shown in the buffer: the old text
;; highlighted, the new text after it.  The buffer is read-only while the review lasts; the keys
;; are y (keep), n (drop), a (keep this and the rest), d (drop this and the rest), RET (apply
;; the kept ones now), q (quit, apply nothing), TAB / S-TAB (next / previous).  Once every hunk
;; is decided, the ids of the kept ones go back to the server (`complexEdit.applyReview' with
;; the answer's proposalId), which lands exactly those as one undo step, rebased over what was
;; typed meanwhile, or answers `document_changed' with nothing applied.

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
  id overlay old new label decision)

(defvar-local complex-edit--review nil
  "The review in this buffer: a plist (:answer :backend :hunks :index :read-only).")

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

(defun complex-edit-review--own-hunks (answer backend)
  "The hunks of ANSWER that change this buffer (not another file), with their ids.
BACKEND names the buffer's URI."
  (let ((uri (funcall (plist-get backend :uri)))
        (index -1))
    (delq nil (mapcar (lambda (hunk)
                        (setq index (1+ index))
                        (unless (and (plist-get hunk :uri)
                                     (not (equal (plist-get hunk :uri) uri)))
                          (if (plist-get hunk :id) hunk (plist-put (copy-sequence hunk) :id index))))
                      (plist-get answer :hunks)))))

(defun complex-edit-review--hunks (answer backend)
  "The hunks of ANSWER placed in the buffer, or nil when the buffer moved on."
  (let* ((own (complex-edit-review--own-hunks answer backend))
         (regions (mapcar (lambda (hunk) (complex-edit-review--region hunk backend)) own)))
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
           (complex-edit--hunk-create :id (plist-get hunk :id) :overlay overlay
                                      :old (plist-get hunk :oldText) :new new
                                      :label (plist-get hunk :label))))
       own regions))))

(defun complex-edit-review-start (answer backend)
  "Review the hunks of ANSWER in the current buffer.
BACKEND reads their positions."
  (let ((hunks (complex-edit-review--hunks answer backend)))
    (cond
     ((null (complex-edit-review--own-hunks answer backend))
      (complex-edit-report
       (current-buffer)
       (complex-edit-with answer :applied :json-false :hunks nil
                          :message "no change proposed to this buffer; nothing was applied")))
     ((null hunks)
        (complex-edit-report
         (current-buffer)
         (complex-edit-with answer :success :json-false :applied :json-false
                            :reason "document_changed"
                            :error "the buffer changed since the server read it; nothing was applied")))
     (t
      (let ((elsewhere (- (length (plist-get answer :hunks)) (length hunks))))
        (when (> elsewhere 0)
          (display-warning 'complex-edit
                           (format "%d proposed change%s to other files cannot be reviewed here \
and will not land" elsewhere (if (= elsewhere 1) "" "s")))))
      (setq complex-edit--review (list :answer answer :backend backend :hunks hunks :index 0
                                       :read-only buffer-read-only))
      (setq buffer-read-only t)
      (complex-edit-review-mode 1)
      (complex-edit-review--show)))))

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

(defun complex-edit-review--end ()
  "Take the review off the buffer: its overlays, its keys, its read-only state."
  (let ((review complex-edit--review))
    (mapc (lambda (hunk) (delete-overlay (complex-edit--hunk-overlay hunk)))
          (plist-get review :hunks))
    (setq buffer-read-only (plist-get review :read-only)
          complex-edit--review nil)
    (complex-edit-review-mode -1)))

(defun complex-edit-review--send (backend answer keep on-answer)
  "Send the ids KEEP of ANSWER's proposal to the server through BACKEND.
ON-ANSWER gets the server's answer (a plist); a JSON-RPC error becomes a
failed one."
  (funcall (plist-get backend :send)
           `(:command "complexEdit.applyReview"
             :arguments [(:proposalId ,(plist-get answer :proposalId) :keep ,(vconcat keep))])
           (lambda (result) (funcall on-answer (complex-edit--plist result)))
           (lambda (err)
             (let* ((err (complex-edit--plist err))
                    (gone (equal (plist-get (plist-get err :data) :code) "unknown_proposal")))
               (funcall on-answer
                        `(:success :json-false :applied :json-false :reason "invalid_request"
                          :error ,(if gone ; the server says why, and how long it keeps one
                                      (format "the proposal is gone: %s"
                                              (plist-get err :message))
                                    (format "%s (JSON-RPC %s)"
                                            (or (plist-get err :message) "refused")
                                            (plist-get err :code)))))))))

(defun complex-edit-review-apply ()
  "Send the changes kept so far to the server, and end the review.
The server applies them; the changes not decided yet are dropped."
  (interactive)
  (unless complex-edit--review (user-error "Complex Edit: no review here"))
  (let* ((buffer (current-buffer))
         (answer (plist-get complex-edit--review :answer))
         (backend (plist-get complex-edit--review :backend))
         (hunks (plist-get complex-edit--review :hunks))
         (kept (cl-remove-if-not (lambda (hunk) (eq (complex-edit--hunk-decision hunk) 'keep))
                                 hunks))
         (summary (format "kept %d of %d change%s" (length kept) (length hunks)
                          (if (= (length hunks) 1) "" "s")))
         (counts (list :kept (length kept) :declined (- (length hunks) (length kept))
                       :hunks nil)))
    ;; Writable again before the server's edit arrives.
    (complex-edit-review--end)
    (complex-edit-review--send
     backend answer (mapcar #'complex-edit--hunk-id kept)
     (lambda (landed)
       (complex-edit-report
        buffer
        (apply #'complex-edit-with
               (cond ((null kept)
                      (complex-edit-with answer :applied :json-false :message
                                         (format "%s (%s)" summary
                                                 (or (plist-get answer :message) "done"))))
                     ((complex-edit--true-p (plist-get landed :success))
                      (complex-edit-with landed :message
                                         (format "%s (%s)" summary
                                                 (or (plist-get answer :message) "done"))))
                     ((equal (plist-get landed :reason) "document_changed")
                      (complex-edit-with landed :error
                                         (format "%s, but the buffer changed under them; \
nothing was applied" summary)))
                     (t landed))
               counts))))))

(defun complex-edit-review-quit ()
  "End the review without applying anything."
  (interactive)
  (unless complex-edit--review (user-error "Complex Edit: no review here"))
  (dolist (hunk (plist-get complex-edit--review :hunks))
    (setf (complex-edit--hunk-decision hunk) 'drop))
  (complex-edit-review-apply))

(provide 'complex-edit-review)

;;; complex-edit-review.el ends here
